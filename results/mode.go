package results

// Mode is what a Run's Backends are, as its results header records it.
// Its values are the strings results files hold.
type Mode string

// The modes of a Run.
const (
	// ModeTarget: live servers given by URL.
	ModeTarget Mode = "target"
	// ModeMock: in-process mock servers over HTTP in real time.
	ModeMock Mode = "mock"
	// ModeSim: simulated engines in virtual time.
	ModeSim Mode = "sim"
)
