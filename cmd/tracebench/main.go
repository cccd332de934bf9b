// Command tracebench benchmarks routing and batching policies for LLM
// serving fleets by replaying request traces. See the README.
package main

import (
	"os"

	"github.com/tracebench/tracebench/cmd/tracebench/cli"
)

func main() { os.Exit(cli.Main()) }
