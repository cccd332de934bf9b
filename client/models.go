package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// maxModelsBody bounds a /v1/models response (4 MiB).
const maxModelsBody = 4 << 20

// ListModels returns the ids of the models base serves (GET /v1/models,
// OpenAI list format: {"data": [{"id": ...}]}), in the server's order; the
// first is the usual default model. It uses c's transport, credentials
// and extra headers; its time is bounded by c's first-byte timeout.
func ListModels(ctx context.Context, c *Client, base string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.FirstByteTimeout)
	defer cancel()
	u := BaseURL(base) + "/v1/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("list models at %s: %w", base, err)
	}
	c.setHeaders(req)
	req.Header.Set("Accept", "application/json")
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list models: %s", redact(err.Error(), c.secrets))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list models at %s: %s", u, redact(httpErrorText(resp, resp.Body), c.secrets))
	}
	var body struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelsBody)).Decode(&body); err != nil {
		return nil, fmt.Errorf("list models at %s: decode response: %w", u, err)
	}
	ids := make([]string, 0, len(body.Data))
	for _, m := range body.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	if len(ids) == 0 {
		return nil, fmt.Errorf("list models at %s: the server lists no models", u)
	}
	return ids, nil
}
