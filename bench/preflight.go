package bench

// Preflight opens the workload once and builds the policy with each of
// routers, so that a bad Workload or Policy fails once, before any Run
// starts, rather than in every Run of a batch side by side.
func Preflight(w Workload, p Policy, routers []string) error {
	src, err := OpenSource(w)
	if err != nil {
		return err
	}
	src.Close()
	for _, name := range routers {
		p.Router = name
		if _, err := buildPolicy(p, w.Seed); err != nil {
			return err
		}
	}
	return nil
}
