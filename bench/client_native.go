package bench

import "github.com/tracebench/tracebench/client"

// checkNativeAPI refuses the native API (llama.cpp's POST /completion)
// with a dialect whose servers have none.
func checkNativeAPI(cf *Client) error {
	if cf.API != client.APINative || cf.dialect.Endpoints.Native != "" {
		return nil
	}
	return fieldf("Spec.Client.API", "Spec.Client.API %q: %s servers have no native completion API (llama.cpp's POST /completion); use completions, or --dialect llamacpp",
		cf.API, cf.dialect.Name)
}
