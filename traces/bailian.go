package traces

import "encoding/json"

// BailianBlockSize is the tokens per hash id of the Qwen Bailian usage
// traces (alibaba-edu/qwen-bailian-usagetraces-anon, files
// *_blksz_16.jsonl).
const BailianBlockSize = 16

// bailianRecord is one line of a Qwen Bailian usage trace: chat_id,
// parent_chat_id (-1 for a conversation's first request), timestamp in
// seconds, input_length and output_length in tokens, type (text, search,
// image, file), turn (1-based) and hash_ids, one salted hash per block of
// 16 tokens covering the whole input (a follow-up's input includes the
// history the service kept).
type bailianRecord struct {
	ChatID       json.RawMessage `json:"chat_id"`
	ParentChatID json.RawMessage `json:"parent_chat_id"`
	Timestamp    *float64        `json:"timestamp"`
	InputLength  *int            `json:"input_length"`
	OutputLength *int            `json:"output_length"`
	Turn         *int            `json:"turn"`
	HashIDs      []uint64        `json:"hash_ids"`
}

// bailianDecoder decodes Bailian lines with bs tokens per hash id and
// timestamps in unit. Session is the conversation's root chat_id, found
// by following parent_chat_id through the chats read so far (a parent
// outside the file is taken as the root); the map of chat ids to roots
// grows with the conversations of the trace, 30-odd bytes per chat.
func bailianDecoder(bs int, unit timeUnit) func([]byte, int, *Request) error {
	roots := map[string]string{}
	return func(line []byte, lineNo int, r *Request) error {
		var rec bailianRecord
		if err := json.Unmarshal(line, &rec); err != nil {
			return jsonFieldErr(err)
		}
		id, err := sessionID(rec.ChatID)
		switch {
		case err != nil:
			return fieldErr("chat_id", "want a string or number, got %s", rec.ChatID)
		case id == "":
			return fieldErr("chat_id", "missing")
		case rec.Timestamp == nil:
			return fieldErr("timestamp", "missing")
		}
		if err := lengthsPresent(rec.InputLength, rec.OutputLength); err != nil {
			return err
		}
		parent, err := sessionID(rec.ParentChatID)
		if err != nil {
			return fieldErr("parent_chat_id", "want a string or number, got %s", rec.ParentChatID)
		}
		at, err := unit.toDuration("timestamp", *rec.Timestamp)
		if err != nil {
			return err
		}
		*r = Request{ID: id, Arrival: at, InputTokens: *rec.InputLength, OutputTokens: *rec.OutputLength}
		if len(rec.HashIDs) > 0 {
			r.BlockIDs, r.BlockSize = rec.HashIDs, bs
		}
		if err := checkBlocks(r, bs); err != nil {
			return err
		}
		if rec.Turn != nil && *rec.Turn > 1 {
			r.Turn = *rec.Turn - 1
		}
		r.Session = id
		if parent != "" && parent != "-1" {
			r.Session = parent
			if root, ok := roots[parent]; ok {
				r.Session = root
			}
		}
		roots[id] = r.Session
		return nil
	}
}
