package calibrate

// serverRow is the equation of a request's prompt as the server timed it
// (llama.cpp's timings.prompt_ms): the step(s) that computed the prompt,
// shared with the decoders of the time, without the wait for the step in
// progress at arrival and without the request overhead, which the
// server's clock does not see. Beside the TTFT row it tells the overhead
// from the prompt terms: on the recorded CPU fleet the TTFT rows alone
// put 4.3 ms in the overhead, where the client's TTFT exceeded the
// server's prompt time by 1.3 ms (median) in every policy's run. It is
// left out when the server sent no timings.
func serverRow(ttft row, q request) (row, bool) {
	if q.promptSecs <= 0 {
		return row{}, false
	}
	out := ttft
	out.x, out.promptX = ttft.promptX, [numCols]float64{}
	out.x[colOverhead] = 0
	out.y, out.w, out.server = q.promptSecs, 1/q.promptSecs, true
	return out, true
}
