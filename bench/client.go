package bench

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/tracebench/tracebench/client"
	"github.com/tracebench/tracebench/dialect"
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
	if err := checkNativeAPI(cf); err != nil {
		return nil, "", err
	}
	c := client.New(client.Options{API: cf.API, Model: cf.Model, APIKey: cf.apiKey(), Headers: headers,
		Stream: !cf.NoStream, ConnectTimeout: 5 * time.Second, FirstByteTimeout: cf.Timeout, IdleTimeout: cf.Timeout,
		TokenExact: true, Dialect: cf.dialect, Salt: cf.salt, ReasoningTags: cf.ReasoningTags})
	model := cf.Model
	err = askEach(ctx, backends, func(ctx context.Context, b string) error {
		models, err := client.ListModels(ctx, c, b)
		if err != nil {
			return err
		}
		if model == "" && len(models) > 0 {
			model = models[0]
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if model != cf.Model {
		c.Close()
		cf.Model = model
		return NewClient(ctx, cf, nil)
	}
	return c, model, nil
}

// resolveDialect returns the dialect name (--dialect) names, or with "auto"
// the one the first backend answers as (dialect.Detect), and why. A
// backend answering as another dialect is logged; the first one wins.
func resolveDialect(ctx context.Context, name string, headers map[string]string, apiKey string,
	backends []string) (*dialect.Dialect, string, error) {
	if name == "" || name == dialect.Auto {
		return detectDialect(ctx, headers, apiKey, backends)
	}
	d, err := dialect.Lookup(name)
	if err != nil {
		return nil, "", fieldf("Spec.Client.Dialect", "Spec.Client.Dialect: %v", err)
	}
	return d, "--dialect " + d.Name, nil
}

// detectDialect asks each backend (10 s each).
func detectDialect(ctx context.Context, headers map[string]string, apiKey string,
	backends []string) (*dialect.Dialect, string, error) {
	hc := &http.Client{Timeout: 10 * time.Second, Transport: headerTransport{headers: headers, apiKey: apiKey}}
	var chosen dialect.Detection
	err := askEach(ctx, backends, func(ctx context.Context, b string) error {
		det, err := dialect.Detect(ctx, hc, b)
		switch {
		case err != nil:
			return err
		case chosen.Dialect == nil:
			chosen = det
			chosen.Reason = "detected: " + b + " " + det.Reason
		case det.Dialect != chosen.Dialect:
			slog.Warn("backends speak different dialects; the first one's is used",
				"backend", b, "dialect", det.Dialect.Name, "why", det.Reason, "used", chosen.Dialect.Name)
		}
		return nil
	})
	if err != nil {
		return nil, "", err
	}
	if chosen.Dialect == nil {
		return dialect.OrDefault(nil), "no backend to ask; " + dialect.Default + " assumed", nil
	}
	return chosen.Dialect, chosen.Reason, nil
}

// askEach calls ask for each backend in turn, giving each 10 s, and
// stops at the first error, wrapped with the backend's URL.
func askEach(ctx context.Context, backends []string, ask func(ctx context.Context, b string) error) error {
	for _, b := range backends {
		actx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := ask(actx, b)
		cancel()
		if err != nil {
			return fmt.Errorf("target %s: %w", b, err)
		}
	}
	return nil
}

// headerTransport adds the --header values and the bearer token to
// every probe, as the client does to every request.
type headerTransport struct {
	headers map[string]string
	apiKey  string
}

func (t headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range t.headers {
		r.Header.Set(k, v)
	}
	if t.apiKey != "" {
		r.Header.Set("Authorization", "Bearer "+t.apiKey)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// ResolveDialect resolves c.Dialect against backends ("auto" or "":
// detected from the first backend that answers, see resolveDialect),
// records it and why for the Run's client and results header, and
// returns it.
func (c *Client) ResolveDialect(ctx context.Context, backends []string) (*dialect.Dialect, error) {
	headers, err := parseHeaders(c.Headers)
	if err != nil {
		return nil, err
	}
	d, why, err := resolveDialect(ctx, c.Dialect, headers, c.apiKey(), backends)
	if err != nil {
		return nil, err
	}
	c.dialect, c.dialectWhy = d, why
	return d, nil
}

// HTTPClient is an HTTP client with the given timeout that sends c's
// extra headers and bearer token with every request, as a Run's client
// does (for probes and cache flushes outside a Run).
func (c *Client) HTTPClient(timeout time.Duration) (*http.Client, error) {
	headers, err := parseHeaders(c.Headers)
	if err != nil {
		return nil, err
	}
	return &http.Client{Timeout: timeout, Transport: headerTransport{headers: headers, apiKey: c.apiKey()}}, nil
}

// serverInfoTimeout bounds each request of fetchServerInfo.
const serverInfoTimeout = 2 * time.Second

// fetchServerInfo asks base who serves it and what its dialect says of
// itself (dialect.Describe), nil when it does not answer.
func fetchServerInfo(ctx context.Context, base string) *dialect.ServerInfo {
	return dialect.Describe(ctx, &http.Client{Timeout: serverInfoTimeout}, base)
}
