package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/dialect"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

// A comparison against live targets (CompareSpec.Targets) runs every
// router on the same servers, one after another. To compare them fairly
// each run must start from the same cache state: see isolation. Before
// the first policy it probes the targets' speed and warns when the
// planned load will overload them, with the expected duration; it probes
// again before every later run and the verdict says how much the speed
// moved between runs.

// liveBench is the plan of a comparison against live targets. Its runs
// go one at a time (CompareSpec.Jobs is 1 with Targets).
type liveBench struct {
	targets []string
	d       *dialect.Dialect
	hc      *http.Client
	// client sends the speed probes; plan is their size.
	client *client.Client
	plan   workloadPlan
	isolation
	// order is the policies in the order they run.
	order []string
	// probes is the speed probe's rate before each run so far, req/s;
	// runs counts the runs prepared.
	probes []float64
	runs   int
}

// planLiveBench resolves the dialect, decides how runs are isolated and
// orders the policies: unchanged when caches can be flushed, else
// rotated by seed so repeated benches with different seeds start with
// different policies. It writes its notes to errOut.
func planLiveBench(ctx context.Context, spec *CompareSpec, names []string, errOut io.Writer) (*liveBench, []string, error) {
	hc, err := spec.Base.Client.HTTPClient(30 * time.Second)
	if err != nil {
		return nil, nil, err
	}
	d, err := spec.Base.Client.ResolveDialect(ctx, spec.Targets)
	if err != nil {
		return nil, nil, err
	}
	lb := &liveBench{targets: spec.Targets, d: d, hc: hc}
	ferr := lb.flushAll(ctx)
	lb.isolation = decideIsolation(d, ferr, saltable(&spec.Base.Client, d))
	if ferr != nil {
		fmt.Fprintf(errOut, "tracebench: %v\n", ferr)
	}
	fmt.Fprintf(errOut, "tracebench: %s\n", lb.line())
	if lb.how != isoFlush {
		k := int(spec.Base.Workload.Seed % uint64(len(names)))
		names = append(append([]string{}, names[k:]...), names[:k]...)
		fmt.Fprintf(errOut, "tracebench: order rotated by the seed: %v\n", names)
	}
	lb.order = names
	return lb, names, nil
}

// flushAll empties every target's prefix cache (the first error stops).
func (lb *liveBench) flushAll(ctx context.Context) error {
	for _, t := range lb.targets {
		fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := lb.d.Flush(fctx, lb.hc, t)
		cancel()
		if err != nil {
			return err
		}
	}
	return nil
}

// before prepares the run of router (nothing without a live plan): a
// speed probe (the first run's is the planning probe), a flush when the
// plan has them, the run's salt, and the header notes with its place in
// the order. A flush refused now is noted and the run goes on (without a
// salt to fall back on, the verdict is then withheld).
func (lb *liveBench) before(ctx context.Context, rs *Spec, router string) {
	if lb == nil {
		return
	}
	i, n, errOut := slices.Index(lb.order, router), len(lb.order), rs.ErrOut
	if errOut == nil {
		errOut = io.Discard
	}
	if lb.runs++; lb.runs > 1 && lb.client != nil {
		if rps, err := lb.probeAll(ctx); err == nil {
			lb.probes = append(lb.probes, rps)
		} else {
			fmt.Fprintf(errOut, "tracebench: speed probe: %v\n", err)
		}
	}
	caches := lb.caches()
	if lb.flush {
		if err := lb.flushAll(ctx); err != nil {
			fmt.Fprintf(errOut, "tracebench: %v\n", err)
			if lb.how == isoFlush {
				// This run starts on the caches the last one left: the
				// verdict is withheld.
				lb.how, lb.why = isoNone, err.Error()
				caches = lb.caches()
			}
		}
	}
	rs.benchCaches, rs.benchOrder = caches, strconv.Itoa(i+1)+" of "+strconv.Itoa(n)
	if len(lb.probes) > 0 {
		rs.benchProbe = lb.probes[len(lb.probes)-1]
	}
	if lb.how == isoSalt {
		rs.Client.salt = lb.nonce + "/" + router + "/seed " + strconv.FormatUint(rs.Workload.Seed, 10)
	}
}

// probeRequests is how many requests the speed probe sends to each
// target at once.
const probeRequests = 4

// probe measures the targets' speed with probeRequests concurrent
// requests of the workload's mean prompt and output lengths (prompts of
// their own, so they share no cache with the workload) and warns on
// errOut when the planned arrival rate exceeds what the targets served,
// with the expected duration of each policy's run. It keeps client for
// the probes before later runs.
func (lb *liveBench) probe(ctx context.Context, w Workload, client *client.Client, errOut io.Writer) error {
	plan, err := planOf(w)
	if err != nil {
		return err
	}
	lb.plan, lb.client = plan, client
	capacity, err := lb.probeAll(ctx)
	if err != nil {
		fmt.Fprintf(errOut, "tracebench: speed probe: %v\n", err)
		return nil
	}
	lb.probes = append(lb.probes, capacity)
	fmt.Fprintf(errOut, "tracebench: speed probe: the targets served %.2f req/s of the workload's mean size "+
		"(%d prompt, %d output tokens; %d at once each)\n", capacity, plan.in, plan.out, probeRequests)
	if plan.rate > capacity && capacity > 0 {
		fmt.Fprintf(errOut, "tracebench: warning: the plan is %d requests at %.2f req/s, more than the targets served; "+
			"expect about %s per policy instead of %s, with queueing and timeouts\n", plan.n, plan.rate,
			roundDur(time.Duration(float64(plan.n)/capacity*float64(time.Second))), roundDur(plan.span))
	}
	return nil
}

// probeAll probes every target in turn and returns the sum of their
// rates, req/s; a flush after it leaves the caches as they were.
func (lb *liveBench) probeAll(ctx context.Context) (float64, error) {
	var capacity float64
	for _, t := range lb.targets {
		rps, err := probeTarget(ctx, lb.client, t, lb.plan)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", t, err)
		}
		capacity += rps
	}
	if lb.flush {
		_ = lb.flushAll(ctx)
	}
	return capacity, nil
}

// workloadPlan is what the bench will send to each policy.
type workloadPlan struct {
	n       int
	span    time.Duration
	rate    float64
	in, out int
}

// maxPlanRequests bounds the requests read to plan (the rate and mean
// sizes of a longer trace come from its first ones).
const maxPlanRequests = 100000

// planOf reads the workload as the runs will replay it.
func planOf(wf Workload) (workloadPlan, error) {
	src, err := OpenSource(wf)
	if err != nil {
		return workloadPlan{}, err
	}
	defer src.Close()
	var p workloadPlan
	var in, out int64
	for p.n < maxPlanRequests {
		r, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return workloadPlan{}, err
		}
		p.n++
		p.span = r.Arrival
		in += int64(max(r.InputTokens, len(traces.PromptTokens(&r))))
		out += int64(r.OutputTokens)
	}
	if p.n == 0 {
		return p, errors.New("the workload has no requests")
	}
	p.in, p.out = int(in/int64(p.n)), max(int(out/int64(p.n)), 1)
	if p.span > 0 {
		p.rate = float64(p.n) / p.span.Seconds()
	}
	return p, nil
}

// probeTarget sends probeRequests requests at once and returns the rate
// at which they were served.
func probeTarget(ctx context.Context, client *client.Client, target string, p workloadPlan) (float64, error) {
	nonce := strconv.FormatInt(time.Now().UnixNano(), 36)
	start := time.Now()
	now := func() time.Duration { return time.Since(start) }
	res := make([]results.Result, probeRequests)
	var wg sync.WaitGroup
	for i := range probeRequests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := &traces.Request{ID: "tracebench-probe-" + nonce + "-" + strconv.Itoa(i), InputTokens: p.in, OutputTokens: p.out}
			client.Do(ctx, target, req, &res[i], now, nil)
		}()
	}
	wg.Wait()
	wall := now()
	for i := range res {
		if !res[i].OK() {
			return 0, fmt.Errorf("%s: %s", res[i].ErrClass, res[i].Err)
		}
	}
	return probeRequests / wall.Seconds(), nil
}

// roundDur rounds d for a message (to the second above a minute).
func roundDur(d time.Duration) time.Duration {
	if d > time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// prepareLive plans a comparison against spec.Targets: dialect, flush
// or rotated order, and the speed probe. It returns the plan and the
// routers in the order they run, and puts the model the targets serve in
// spec.Base.Client.
func prepareLive(ctx context.Context, spec *CompareSpec, names []string, errOut io.Writer) (*liveBench, []string, error) {
	if err := CheckTargets(spec.Targets); err != nil {
		return nil, nil, err
	}
	lb, names, err := planLiveBench(ctx, spec, names, errOut)
	if err != nil {
		return nil, nil, err
	}
	client, model, err := NewClient(ctx, &spec.Base.Client, spec.Targets)
	if err != nil {
		return nil, nil, err
	}
	spec.Base.Client.Model = model
	if err := lb.probe(ctx, spec.Base.Workload, client, errOut); err != nil {
		return nil, nil, err
	}
	return lb, names, nil
}

// CheckTargets rejects a target that is not an http(s) base URL, as a
// UsageError naming CompareSpec.Targets.
func CheckTargets(targets []string) error {
	for _, t := range targets {
		u, err := url.Parse(t)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fieldf("CompareSpec.Targets", "CompareSpec.Targets %q: want a base URL such as http://host:8000", t)
		}
	}
	return nil
}
