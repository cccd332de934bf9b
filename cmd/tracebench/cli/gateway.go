package cli

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/cmd/tracebench/cli/flags"
	"github.com/tracebench/tracebench/gateway"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/replay"
	"github.com/tracebench/tracebench/reports"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/traces"
)

func init() { register(newGatewayCmd) }

// gatewayOptions are the flags of `tracebench gateway`.
type gatewayOptions struct {
	pf       policyFlags
	cf       clientFlags
	mf       fleetFlags
	pd       pdFlags
	targets  []string
	host     string
	port     int
	out      string
	requests string
	maxBody  int64
	maxQueue int
	seed     uint64
}

// newGatewayCmd is `tracebench gateway`.
func newGatewayCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "gateway",
		Short: "Serve an OpenAI-compatible gateway that routes every request with one policy",
		Long: `gateway listens for OpenAI-compatible requests (/v1/completions and
/v1/chat/completions, streamed or not; /v1/models; /health; /metrics) and
routes each with the router, filter and queue given (--policy, --filter,
--queue, the same flags and code as replay), passing it through to the chosen
--target backend and streaming the answer back. Any load generator (or
several 'tracebench replay --shard i/n' processes) then shares one router
state. Every request is recorded in --out, timed at the gateway, in the
results-file format that report, predict and calibrate read, and the requests
themselves in --requests-out. SIGTERM or Ctrl-C stops accepting, lets
in-flight requests finish for --grace and writes the results file.`,
		Args: cobra.NoArgs,
	}, &gatewayOptions{})
}

// bind declares the gateway's flags.
func (o *gatewayOptions) bind(fs *pflag.FlagSet) {
	flags.BindPolicy(fs, &o.pf, true)
	flags.BindClient(fs, &o.cf)
	o.mf.bind(fs)
	o.pd.bind(fs)
	fs.StringArrayVar(&o.targets, "target", nil, "base URL of a backend (repeatable; dns+http://NAME:PORT follows a headless Service)")
	fs.StringVar(&o.host, "host", "127.0.0.1", "address to listen on (0.0.0.0: every interface)")
	fs.IntVar(&o.port, "port", 8080, "port to listen on (0: any free port)")
	fs.StringVar(&o.out, "out", "gateway.jsonl", "results file (JSONL), written as requests finish")
	fs.StringVar(&o.requests, "requests-out", "", "native trace of the requests the gateway saw, prompts included, for predict and calibrate "+
		"(default: --out with .requests.jsonl; 'none': not written)")
	fs.Int64Var(&o.maxBody, "max-body", gateway.DefaultMaxBody, "largest request body accepted, bytes (413 above)")
	fs.IntVar(&o.maxQueue, "max-queue", 0, "most requests held in the queue before new ones are answered 429 with Retry-After (0: no limit)")
	fs.Uint64Var(&o.seed, "seed", bench.DefaultWorkload().Seed, "seed of the policies' random choices")
	gatewayUsage(fs)
}

// gatewayUsage words the shared flags whose meaning the gateway changes,
// and hides those that do not apply to it (refused when given: see
// checkGatewayFlags).
func gatewayUsage(fs *pflag.FlagSet) {
	fs.Lookup("api-key").Usage = "API key the gateway's clients must send (Authorization: Bearer KEY; 401 otherwise), " +
		"and the one sent to the backends (default for the backends only: $OPENAI_API_KEY); never written or logged"
	fs.Lookup("grace").Usage = "after SIGTERM or Ctrl-C, how long in-flight requests may finish before they are cut"
	fs.Lookup("timeout").Usage = "first-byte and idle-stream timeout per upstream request"
	for _, n := range append(append([]string(nil), gatewayReplayOnly...), "sim", "kv-event-delay") {
		_ = fs.MarkHidden(n)
	}
}

// gatewayReplayOnly are client flags of replay that the gateway cannot
// honour: its clients choose the endpoint, model and streaming.
var gatewayReplayOnly = []string{"api", "model", "no-stream"}

// checkGatewayFlags refuses flags that do not apply to a gateway.
func checkGatewayFlags(cmd *cobra.Command, o *gatewayOptions) error {
	fs := cmd.Flags()
	for _, n := range gatewayReplayOnly {
		if fs.Changed(n) {
			return usagef("--%s applies to replay: the gateway passes each request through as its client sent it", n)
		}
	}
	switch {
	case o.mf.Sim > 0:
		return usagef("--sim applies to replay: the gateway serves live requests in real time (give --target, or --mock N)")
	case len(o.targets) == 0 && o.mf.TargetsFile == "" && !fs.Changed("mock"):
		return usagef("--target: give at least one backend (or --mock N for an in-process mock fleet)")
	case o.port < 0 || o.port > 65535:
		return usagef("--port %d: want 0 to 65535", o.port)
	case o.maxBody <= 0:
		return usagef("--max-body %d: want a positive number of bytes", o.maxBody)
	case o.maxQueue < 0:
		return usagef("--max-queue %d: want ≥ 0 (0: no limit)", o.maxQueue)
	}
	return nil
}

// requestsPath is the --requests-out path ("" when not written).
func (o *gatewayOptions) requestsPath() string {
	switch o.requests {
	case "none":
		return ""
	case "":
		return strings.TrimSuffix(o.out, ".jsonl") + ".requests.jsonl"
	}
	return o.requests
}

// run serves the gateway until the command's context ends.
func (o *gatewayOptions) run(cmd *cobra.Command, _ []string) error {
	if err := checkGatewayFlags(cmd, o); err != nil {
		return err
	}
	if err := o.pf.LoadConfig(cmd.Flags().Changed, true); err != nil {
		return err
	}
	reqPath := o.requestsPath()
	wl := bench.DefaultWorkload()
	wl.Trace, wl.Format, wl.Seed = reqPath, traces.FormatNative, o.seed
	rs := runSpec{Workload: wl, Policy: o.pf, Client: o.cf, Results: o.out, ErrOut: libOut(cmd.ErrOrStderr())}
	stopFleet, err := o.pd.backends(cmd.Context(), &rs, &o.mf, o.targets)
	if err != nil {
		return err
	}
	defer stopFleet()
	parts, err := bench.BuildGateway(cmd.Context(), rs, gatewayIdent(reqPath))
	if err != nil {
		return err
	}
	defer parts.Client.Close()
	return serveGateway(cmd, o, rs, parts, reqPath)
}

// gatewayIdent names the gateway's requests in the results header.
func gatewayIdent(reqPath string) string {
	if reqPath == "" {
		return "gateway (requests not recorded)"
	}
	return "gateway: " + reqPath
}

// serveGateway opens the files and the listener, serves until the
// command's context ends, then writes the stop line and the summary.
func serveGateway(cmd *cobra.Command, o *gatewayOptions, rs runSpec, parts bench.GatewayParts, reqPath string) error {
	w, reqs, err := openGatewayFiles(o.out, reqPath, parts.Header)
	if err != nil {
		return err
	}
	if reqs != nil {
		defer reqs.Close()
	}
	hc, err := rs.Client.HTTPClient(10 * time.Second)
	if err != nil {
		return err
	}
	g, err := gateway.New(cmd.Context(), gateway.Options{Backends: rs.Backends, Client: parts.Client, HTTP: hc,
		Router: parts.Router, Queue: parts.Queue, Capacity: parts.Capacity, MaxInflight: parts.MaxInflight, PD: parts.PD,
		KVEvents: rs.KVEvents, KVListen: rs.KVListen, Discover: rs.Discover, ScrapeEvery: scrapeInterval(rs.Client),
		Results: w, Requests: writerOrNil(reqs), APIKey: o.cf.APIKey, MaxBody: o.maxBody, MaxQueue: o.maxQueue,
		Grace: rs.Client.Grace})
	if err != nil {
		_ = w.Close(results.Stop{Reason: results.StopError(err)})
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(o.host, strconv.Itoa(o.port)))
	if err != nil {
		err = fmt.Errorf("--host %s --port %d: %w", o.host, o.port, err)
		_ = w.Close(results.Stop{Reason: results.StopError(err)})
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "tracebench: gateway listening on http://%s (%d backends, policy %s)\n",
		ln.Addr(), len(rs.Backends), parts.Header.Policy)
	stop, serveErr := g.Serve(cmd.Context(), ln)
	if rs.Extra != nil {
		stop.Extra = replay.MergeExtra(stop.Extra, rs.Extra())
	}
	if err := w.Close(stop); err != nil && serveErr == nil {
		serveErr = err
	}
	if serveErr != nil {
		return serveErr
	}
	return printGatewaySummary(cmd.OutOrStdout(), o.out)
}

// openGatewayFiles creates the results file (header written) and the
// requests trace (nil when reqPath is "").
func openGatewayFiles(out, reqPath string, h results.Header) (*results.Writer, *os.File, error) {
	for _, p := range []string{out, reqPath} {
		if p == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	var reqs *os.File
	if reqPath != "" {
		f, err := os.Create(reqPath)
		if err != nil {
			return nil, nil, fmt.Errorf("--requests-out: %w", err)
		}
		reqs = f
	}
	w, err := results.Create(out, h)
	if err != nil {
		if reqs != nil {
			reqs.Close()
		}
		return nil, nil, fmt.Errorf("--out: %w", err)
	}
	return w, reqs, nil
}

// writerOrNil keeps a nil file a nil io.Writer.
func writerOrNil(f *os.File) io.Writer {
	if f == nil {
		return nil
	}
	return f
}

// scrapeInterval is the scrape period, 0 without --scrape.
func scrapeInterval(cf clientFlags) time.Duration {
	if !cf.Scrape {
		return 0
	}
	return cf.ScrapeInt
}

// printGatewaySummary prints the summary table of the results file.
func printGatewaySummary(out io.Writer, path string) error {
	sum, err := metrics.Summarize(path, metrics.DefaultOptions())
	if err != nil {
		return err
	}
	if err := reports.WriteTable(out, []*metrics.Summary{sum}); err != nil {
		return err
	}
	fmt.Fprintf(out, "results: %s\n", path)
	return nil
}
