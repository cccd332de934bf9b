package client

import "github.com/tracebench/tracebench/traces"

// nativePath is llama-server's native completion endpoint (b7099
// registers it as /completion and /completions; the first is the one its
// README documents).
const nativePath = "/completion"

// nativeBody encodes a llama.cpp native completion request: prompt (text,
// or token ids under TokenExact as for completions), n_predict (the
// output length; OutputTokens 0 leaves it out and the server's default
// applies), stream, temperature 0, the dialect's extras (llama.cpp:
// ignore_eos and cache_prompt; it has no minimum length) and id_slot
// when the Request names a slot. The model name is sent as for the
// other APIs (llama-server b7099 reads it only to report it).
func (c *Client) nativeBody(req *traces.Request, edit func(map[string]any)) ([]byte, error) {
	n := max(req.OutputTokens, 0)
	v := c.dialect().BodyExtras(n)
	if v == nil {
		v = map[string]any{}
	}
	v["model"], v["prompt"], v["stream"], v["temperature"] = c.model(req), c.prompt(req), c.o.Stream, 0
	if n > 0 {
		v["n_predict"] = n
	}
	if f := c.dialect().SlotField(); f != "" && req.Slot != nil {
		v[f] = *req.Slot
	}
	return encodeBody(req, v, edit)
}
