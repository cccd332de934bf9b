package client

import "bytes"

// chunkInfo is what the client takes from one chunk.
type chunkInfo struct {
	content   bool // some choice carries non-empty generated text outside the reasoning channel
	reasoning bool // some choice carries non-empty reasoning text
	finished  bool // some choice carries a non-empty finish_reason
	usage     *apiUsage
	timings   *apiTimings // llama.cpp's timings object, when present
	slot      *int        // llama.cpp's id_slot, when present
}

// info summarises a decoded chunk.
func (c *apiChunk) info() chunkInfo {
	return chunkInfo{content: c.hasContent(), reasoning: c.hasReasoning(), finished: c.finished(),
		usage: c.Usage, timings: c.Timings, slot: c.IDSlot}
}

// scanChunk is the fast path of chunk decoding: a single pass over the
// JSON that validates it fully and picks out only what chunkInfo needs,
// without reflection or allocation. It declines (ok false) whatever it
// does not handle exactly as encoding/json would: a value that is not an
// object, a duplicated or case-folded known key, an escaped key, a type
// encoding/json would reject, an error frame, deep nesting. The caller
// then decodes with encoding/json; FuzzScanChunk checks that both agree
// whenever scanChunk accepts.
func scanChunk(data []byte, st *scanStore) (chunkInfo, bool) {
	s := scanner{b: data, u: &st.usage, st: st}
	if !s.object(kindTop) {
		return chunkInfo{}, false
	}
	s.ws()
	return s.info, s.i == len(s.b)
}

// scanner walks a JSON text; every method returns false on anything it
// declines (invalid JSON included).
type scanner struct {
	b     []byte
	i     int
	depth int
	info  chunkInfo
	u     *apiUsage
	st    *scanStore
}

// scanStore is storage for the figures of one chunk, reused across the
// chunks of a stream so the fast path does not allocate.
type scanStore struct {
	usage apiUsage
	// details, reasoning and detailsReasoning hold the usage figures
	// encoding/json would allocate behind pointers.
	details          apiCompletionDetails
	reasoning        int
	detailsReasoning int
}

// maxScanDepth bounds nesting; deeper values go to encoding/json.
const maxScanDepth = 64

// Kinds of JSON values scanChunk reads (others are skipped).
const (
	kindSkip       = iota // any value, validated only
	kindTop               // the chunk object
	kindChoice            // an element of choices
	kindMessage           // a delta or message object
	kindUsage             // the usage object
	kindDetails           // usage.prompt_tokens_details
	kindCompletion        // usage.completion_tokens_details
)

// Known keys of each object kind. A known key may appear once.
var (
	keysTop     = []string{"choices", "usage", "error", "object", "message", "timings", "id_slot"}
	keysChoice  = []string{"text", "delta", "message", "finish_reason"}
	keysMessage = []string{"content", "reasoning_content", "reasoning"}
	keysUsage   = []string{"prompt_tokens", "completion_tokens", "prompt_tokens_details",
		"completion_tokens_details", "reasoning_tokens"}
	keysDetails    = []string{"cached_tokens"}
	keysCompletion = []string{"reasoning_tokens"}
)

// member scans the value of key in an object of the given kind.
func (s *scanner) member(kind int, key []byte, seen *uint8) bool {
	var names []string
	switch kind {
	case kindTop:
		names = keysTop
	case kindChoice:
		names = keysChoice
	case kindMessage:
		names = keysMessage
	case kindUsage:
		names = keysUsage
	case kindDetails:
		names = keysDetails
	case kindCompletion:
		names = keysCompletion
	default:
		return s.value()
	}
	i, ok := known(key, names)
	if !ok || (i >= 0 && *seen&(1<<i) != 0) {
		return false
	}
	if i < 0 {
		return s.value()
	}
	*seen |= 1 << i
	return s.field(kind, i)
}

// field scans known key i of an object of the given kind.
func (s *scanner) field(kind, i int) bool {
	switch kind {
	case kindTop:
		return s.topField(i)
	case kindChoice:
		switch i {
		case 0:
			return s.nonEmptyString(&s.info.content)
		case 1, 2:
			return s.null() || s.object(kindMessage)
		}
		return s.nonEmptyString(&s.info.finished)
	case kindMessage:
		if i == 0 {
			return s.nonEmptyString(&s.info.content)
		}
		return s.nonEmptyString(&s.info.reasoning)
	case kindUsage:
		return s.usageField(i)
	case kindCompletion:
		return s.intPtrOrNull(&s.u.CompletionTokensDetails.ReasoningTokens, &s.st.detailsReasoning)
	}
	return s.intOrNull(&s.u.PromptTokensDetails.CachedTokens)
}

// usageField scans known usage key i.
func (s *scanner) usageField(i int) bool {
	switch i {
	case 0:
		return s.intOrNull(&s.u.PromptTokens)
	case 1:
		return s.intOrNull(&s.u.CompletionTokens)
	case 3: // completion_tokens_details
		if s.null() {
			s.u.CompletionTokensDetails = nil
			return true
		}
		s.st.details = apiCompletionDetails{}
		s.u.CompletionTokensDetails = &s.st.details
		return s.object(kindCompletion)
	case 4: // reasoning_tokens (SGLang)
		return s.intPtrOrNull(&s.u.ReasoningTokens, &s.st.reasoning)
	}
	if s.null() {
		return true
	}
	s.u.PromptTokensDetails = &struct {
		CachedTokens int `json:"cached_tokens"`
	}{}
	return s.object(kindDetails)
}

// intPtrOrNull scans null (leaving *p nil, as encoding/json leaves a
// *int) or an integer into storage, pointed to by *p.
func (s *scanner) intPtrOrNull(p **int, storage *int) bool {
	if s.null() {
		*p = nil
		return true
	}
	*p = storage
	return s.intOrNull(storage)
}

// topField scans known top-level key i.
func (s *scanner) topField(i int) bool {
	switch i {
	case 0: // choices
		return s.null() || s.array(kindChoice)
	case 1: // usage
		if s.null() {
			return true
		}
		*s.u = apiUsage{}
		s.info.usage = s.u
		return s.object(kindUsage)
	case 2: // error: a non-null error frame goes to encoding/json
		return s.null()
	case 3: // object: "error" marks the flat error form
		str, ok := s.stringOrNull()
		return ok && string(str) != "error"
	case 4: // message
		_, ok := s.stringOrNull()
		return ok
	}
	// timings and id_slot: llama.cpp sends them once, with the last
	// chunk; a non-null one goes to encoding/json, which reads them whole.
	return s.null()
}

// known returns the index of key in names (-1 for an unknown key) and
// false for a key encoding/json might match by case folding.
func known(key []byte, names []string) (int, bool) {
	for i, n := range names {
		if string(key) == n {
			return i, true
		}
	}
	for _, n := range names {
		if len(key) == len(n) && bytes.EqualFold(key, []byte(n)) {
			return -1, false
		}
	}
	for _, c := range key {
		if c >= 0x80 {
			return -1, false
		}
	}
	return -1, true
}
