package traces

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// vLLM's request logger (vllm/entrypoints/logger.py, --enable-log-requests)
// writes one line per request after the logging prefix:
//
//	INFO 05-10 12:00:00 [logger.py:39] Received request chatcmpl-1: prompt: '...',
//	params: SamplingParams(..., max_tokens=128, ...), prompt_token_ids: [1, 2, ...], ...
var (
	vllmTime    = regexp.MustCompile(`(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(\.\d+)?`)
	vllmID      = regexp.MustCompile(`Received request ([^:\s]+):`)
	vllmMax     = regexp.MustCompile(`max_tokens=(\d+|None)`)
	vllmTokens  = regexp.MustCompile(`prompt_token_ids: (\[[0-9, ]*\]|None)`)
	vllmPromptS = regexp.MustCompile(`prompt: ('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|None), params:`)
)

// vllmYear stands in for the year the log prefix leaves out: only time
// differences matter, so a log that spans a New Year reads as unsorted.
const vllmYear = 2000

// parseVLLMLine reads a "Received request" line: its id, time, max_tokens
// and prompt token ids (else its prompt text, to be tokenised).
func parseVLLMLine(line []byte) (loggedRequest, bool, error) {
	s := string(line)
	id := vllmID.FindStringSubmatch(s)
	if id == nil {
		return loggedRequest{}, false, nil
	}
	out := loggedRequest{id: id[1]}
	at := vllmTime.FindStringSubmatch(s[:strings.Index(s, "Received request ")])
	if at == nil {
		return out, true, fieldErr("timestamp", "no MM-DD HH:MM:SS log time before \"Received request\"")
	}
	n := func(i int) int { v, _ := strconv.Atoi(at[i]); return v }
	frac := 0.0
	if at[6] != "" {
		frac, _ = strconv.ParseFloat("0"+at[6], 64)
	}
	out.at = time.Date(vllmYear, time.Month(n(1)), n(2), n(3), n(4), n(5), int(frac*1e9), time.UTC)
	mt := vllmMax.FindStringSubmatch(s)
	if mt == nil || mt[1] == "None" {
		return out, true, fieldErr("max_tokens", "missing from params (output length unknown)")
	}
	out.output, _ = strconv.Atoi(mt[1])
	if tok := vllmTokens.FindStringSubmatch(s); tok != nil && tok[1] != "None" {
		ids, err := parseIntList(tok[1])
		if err != nil {
			return out, true, fieldErr("prompt_token_ids", "%v", err)
		}
		out.tokens = ids
		return out, true, nil
	}
	p := vllmPromptS.FindStringSubmatch(s)
	if p == nil || p[1] == "None" {
		return out, true, fieldErr("prompt", "neither prompt_token_ids nor prompt logged")
	}
	out.text = unquotePython(p[1])
	return out, true, nil
}

// parseIntList reads "[1, 2, 3]".
func parseIntList(s string) ([]int, error) {
	s = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(s, "["), "]"))
	if s == "" {
		return []int{}, nil
	}
	parts := strings.Split(s, ",")
	out := make([]int, 0, len(parts))
	for _, p := range parts {
		v, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// unquotePython undoes the common escapes of a Python str repr.
func unquotePython(q string) string {
	body := q[1 : len(q)-1]
	r := strings.NewReplacer(`\n`, "\n", `\t`, "\t", `\r`, "\r", `\'`, "'", `\"`, `"`, `\\`, `\`)
	return r.Replace(body)
}
