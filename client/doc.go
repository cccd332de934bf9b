// Package client is the HTTP client of a Run: it sends one Request to a
// Backend in the form its API takes (completions, chat, Responses),
// streams the answer and stamps every chunk (first token, gaps, stalls,
// reasoning and output tokens, usage and cached tokens in the server's
// dialect), classifies failures, and fills a results.Result. It also
// forwards a gateway's requests as they are, lists a server's models and
// salts prompts. replay's loop and the gateway drive it; sim stamps its
// simulated tokens through the same TokenStamps.
package client
