package dialect

// ServerInfo is what a live server says about itself, recorded in the
// run header's config.server so calibration can pick the cache model.
type ServerInfo struct {
	// OwnedBy is /v1/models' owned_by of the first model: "vllm",
	// "llamacpp", "sglang", "tracebench-mock"...
	OwnedBy string `json:"owned_by"`
	// Slots is llama.cpp's number of slots (/props total_slots, -np; 0:
	// not said).
	Slots int `json:"slots,omitempty"`
	// SlotContext is llama.cpp's context per slot in tokens (/props
	// default_generation_settings.n_ctx, i.e. -c / -np; 0: not said).
	SlotContext int `json:"slot_context,omitempty"`
}
