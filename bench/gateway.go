package bench

import (
	"context"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/policies"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/results"
)

// GatewayParts are what a gateway in front of a Spec's Backends routes
// and sends with, built as Run builds them for a client-side replay.
type GatewayParts struct {
	// Router and Queue are the Spec's Policy (filter and parameters
	// included); Capacity and MaxInflight its limits.
	Router      policies.Router
	Queue       policies.Queue
	Capacity    policies.Capacity
	MaxInflight int
	// PD disaggregates prefill and decode (nil: aggregated).
	PD *replay.PDOptions
	// Client sends to the Backends: dialect resolved, every Backend
	// checked to answer /v1/models.
	Client *client.Client
	// Header is the results file's run header: the policy with every
	// parameter it runs with, the Backends, the dialect and the client
	// settings (no credentials).
	Header results.Header
}

// BuildGateway builds rs's policy, P/D options and HTTP client for a
// gateway in front of rs.Backends, with the same construction, defaults
// and errors as Run (a bad policy is a UsageError naming its field; a
// Backend that does not answer is an error naming it). rs.Workload
// describes the requests the gateway records (its trace file), for the
// header; ident names them there. The caller closes Client.
func BuildGateway(ctx context.Context, rs Spec, ident string) (GatewayParts, error) {
	if len(rs.Backends) == 0 {
		return GatewayParts{}, fieldf("Spec.Backends", "Spec.Backends: none; give the servers' base URLs")
	}
	pf := rs.Policy
	pf.sloWeights = rs.Report.SLO.Weights()
	var err error
	if rs.Fleet != nil {
		if pf, err = loraSlots(pf, rs.Fleet.LoRA.MaxLoras); err != nil {
			return GatewayParts{}, err
		}
	}
	pol, err := buildPolicy(pf, rs.Workload.Seed)
	if err != nil {
		return GatewayParts{}, err
	}
	if rs.pd, err = rs.buildPD(); err != nil {
		return GatewayParts{}, err
	}
	rs.warnCapacity(pol.queue.Name())
	client, model, err := NewClient(ctx, &rs.Client, rs.Backends)
	if err != nil {
		return GatewayParts{}, err
	}
	rs.Client.Model = model
	h := header(rs, ident, pol)
	dialectConfig(&h, rs.Client)
	return GatewayParts{Router: pol.router, Queue: pol.queue,
		Capacity:    policies.Capacity{Requests: rs.Policy.Capacity, Tokens: rs.Policy.TokenBudget},
		MaxInflight: rs.Policy.MaxInflight, PD: rs.pd, Client: client, Header: h}, nil
}
