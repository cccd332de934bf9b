package calibrate

import (
	"fmt"

	"github.com/tracebench/tracebench/mockserver/profile"
)

// maxQuietResidual is the per-request residual RMS, relative to the mean
// observation, above which a fit is called too noisy to use. Fits of one
// llama-server (b7099, 4 slots, bound to a CPU) on a quiet 2-core machine
// left 22–37 % on TTFT and 27–35 % on the decode gaps; the same probe of
// two servers while the machine's load average was about 20 left
// 129–163 % and 91–201 %.
const maxQuietResidual = 1.0

// noiseWarning says why the fit is too noisy to use ("" when it is not):
// residuals larger than the observations they explain mean the server's
// times followed something the model has no term for, most often other
// processes holding the server's CPU.
func noiseWarning(rs []profile.Residual) string {
	for _, r := range rs {
		if r.RelRMS > maxQuietResidual {
			return fmt.Sprintf("the server was too noisy to fit: the %s residuals are %.0f %% of the mean observation "+
				"(over %.0f %%; a quiet server leaves 20–40 %%), so its times followed something no term of the model "+
				"describes, most often other processes on its CPU; do not predict with this profile: bind the server "+
				"to a CPU of its own and calibrate again on a quiet machine", r.Kind, 100*r.RelRMS, 100*maxQuietResidual)
		}
	}
	return ""
}
