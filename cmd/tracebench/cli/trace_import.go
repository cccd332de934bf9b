package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/tracebench/tracebench/traces"
	"github.com/tracebench/tracebench/traces/tokenizer"
)

// traceImportOptions are the flags of `trace import`.
type traceImportOptions struct {
	tokenizer   string
	blockSize   int
	skipInvalid bool
	out         string
}

// newTraceImportCmd is `tracebench trace import`.
func newTraceImportCmd() *cobra.Command {
	return newCommand(&cobra.Command{
		Use:   "import LOG -o TRACE",
		Short: "Turn a gateway's or server's request log into a shareable native trace",
		Long: `import reads a request log and writes a native trace: each request's time,
user and session ids and lengths, and its prompt tokenised and hashed into
chained block ids, so prompts that share a prefix share leading block ids
and the trace replays their prefix sharing token-exact. No prompt text or
token id is kept: the trace can be shared.

Log lines read: JSON request records (an OpenAI chat or completions body at
the top level or under "request" or "body", with "timestamp"/"time"/"ts" as
RFC 3339 or Unix seconds, "user"/"user_id", "session_id"/"conversation_id",
and the output length from "usage"/"response.usage".completion_tokens, else
max_completion_tokens or max_tokens), as a proxy captures them; and vLLM
--enable-log-requests lines ("Received request ID: prompt: ..., params:
SamplingParams(... max_tokens=N ...), prompt_token_ids: [...]"), whose token
ids are hashed as they are. Other lines are passed over and counted.`,
		Args: cobra.ExactArgs(1),
	}, &traceImportOptions{})
}

// bind declares the flags of `trace import`.
func (o *traceImportOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.tokenizer, "tokenizer", "whitespace", "tokenizer for prompt text: whitespace|character|tiktoken (cl100k_base, offline)|hf:PATH (a model's tokenizer.json)")
	fs.IntVar(&o.blockSize, "block-size", traces.DefaultImportBlockSize, "tokens per chained block id")
	fs.BoolVar(&o.skipInvalid, "skip-invalid", false, "skip malformed request records (counted) instead of failing")
	bindTraceOut(fs, &o.out)
}

// run imports the log args[0].
func (o *traceImportOptions) run(cmd *cobra.Command, args []string) error {
	return runTraceImport(o, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
}

func runTraceImport(o *traceImportOptions, path string, stdout, stderr io.Writer) error {
	tok, err := tokenizer.Load(o.tokenizer)
	if err != nil {
		return usagef("--tokenizer: %v", err)
	}
	if o.blockSize < 1 || o.blockSize > traces.MaxTokens {
		return usagef("--block-size %d: want 1 to %d", o.blockSize, traces.MaxTokens)
	}
	in := os.Stdin
	if path != "-" {
		if in, err = os.Open(path); err != nil {
			return fmt.Errorf("import: %w", err)
		}
		defer in.Close()
	}
	imp := traces.NewLogImport(in, path, traces.ImportOptions{Tokenizer: tok, BlockSize: o.blockSize, SkipInvalid: o.skipInvalid})
	n, err := writeNativeTo(o.out, stdout, imp)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("import %s: no request records (read %d other lines, skipped %d malformed)", path, imp.Other(), imp.Skipped())
	}
	var notes []string
	if k := imp.Other(); k > 0 {
		notes = append(notes, fmt.Sprintf("passed over %d other line%s", k, map[bool]string{true: "", false: "s"}[k == 1]))
	}
	if k := imp.Skipped(); k > 0 {
		notes = append(notes, "skipped "+traces.MalformedText(k))
	}
	fmt.Fprintf(stderr, "imported %d requests of %s to %s (tokenizer %s, %d-token blocks, no prompt text kept)", n, path, o.out, tok.Name(), o.blockSize)
	if len(notes) > 0 {
		fmt.Fprintf(stderr, "; %s", strings.Join(notes, ", "))
	}
	fmt.Fprintln(stderr)
	return nil
}
