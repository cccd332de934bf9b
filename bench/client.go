package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/tracebench/tracebench/client"
)

// NewClient builds a Run's HTTP client, checking every backend answers, and
// returns it with the model it sends: --model, else the first model the
// first backend's /v1/models lists. The dialect is cf.Dialect, detected
// from the backends when "auto"; cf.dialectWhy records the choice.
func NewClient(ctx context.Context, cf *Client, backends []string) (*client.Client, string, error) {
	headers, err := parseHeaders(cf.Headers)
	if err != nil {
		return nil, "", err
	}
	if cf.dialect == nil {
		d, why, err := resolveDialect(ctx, cf.Dialect, headers, cf.apiKey(), backends)
		if err != nil {
			return nil, "", err
		}
		cf.dialect, cf.dialectWhy = d, why
	}
	if cf.API == client.APIResponses && cf.dialect.Endpoints.Responses == "" {
		return nil, "", fieldf("Spec.Client.API", "Spec.Client.API %q: %s servers have no Responses API (POST /v1/responses); use chat",
			cf.API, cf.dialect.Name)
	}
	c := client.New(client.Options{API: cf.API, Model: cf.Model, APIKey: cf.apiKey(), Headers: headers,
		Stream: !cf.NoStream, ConnectTimeout: 5 * time.Second, FirstByteTimeout: cf.Timeout, IdleTimeout: cf.Timeout,
		TokenExact: true, Dialect: cf.dialect, Salt: cf.salt, ReasoningTags: cf.ReasoningTags})
	model := cf.Model
	for _, b := range backends {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		models, err := client.ListModels(pctx, c, b)
		cancel()
		if err != nil {
			return nil, "", fmt.Errorf("target %s: %w", b, err)
		}
		if model == "" && len(models) > 0 {
			model = models[0]
		}
	}
	if model != cf.Model {
		c.Close()
		cf.Model = model
		return NewClient(ctx, cf, nil)
	}
	return c, model, nil
}
