package predict

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/tracebench/tracebench/results"
)

// slotUse is one request's turn on a slot.
type slotUse struct {
	id string
	at time.Duration
}

// slotPredecessors reads the successful requests of the results file at
// path that name their slot and returns, by request ID, the request that
// its slot (on its server) served before it: "" for the slot's first.
// Slot ids themselves are labels (a server and a simulation that agree
// on every choice can number their slots apart after one tie), so the
// predecessor is what a slot choice decides: which prompt the slot held,
// hence the cache hit, and the save or restore.
func slotPredecessors(path string) (map[string]string, error) {
	type key struct{ backend, slot int }
	uses := map[key][]slotUse{}
	err := results.EachResult(path, nil, func(r *results.Result) error {
		if r.OK() && r.Slot != nil {
			at := r.FirstToken
			if at == 0 {
				at = r.Sent
			}
			k := key{r.Backend, *r.Slot}
			uses[k] = append(uses[k], slotUse{r.ID, at})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("predict: %w", err)
	}
	out := map[string]string{}
	for _, us := range uses {
		slices.SortFunc(us, func(a, b slotUse) int { return cmp.Compare(a.at, b.at) })
		for i, u := range us {
			if i > 0 {
				out[u.id] = us[i-1].id
			} else {
				out[u.id] = ""
			}
		}
	}
	return out, nil
}

// SlotAgreement counts the requests whose slot both the measured run
// (llama.cpp's id_slot, as `--api native` records it for every request)
// and the simulation (the per-slot cache's slot) name, N, and of those
// the ones that followed the same request on their slot on both sides
// (or came first to a slot on both), Same.
type SlotAgreement struct{ N, Same int }

// CompareSlots compares the slot choices of the measured run at live
// with those of the simulated run at predicted.
func CompareSlots(live, predicted string) (SlotAgreement, error) {
	m, err := slotPredecessors(live)
	if err != nil {
		return SlotAgreement{}, err
	}
	p, err := slotPredecessors(predicted)
	if err != nil {
		return SlotAgreement{}, err
	}
	var a SlotAgreement
	for id, want := range m {
		if got, ok := p[id]; ok {
			a.N++
			if got == want {
				a.Same++
			}
		}
	}
	return a, nil
}

// slotNote says how often the simulated engines made the server's slot
// choice; "" when fewer than minLoneRequests requests name their slot on
// both sides (the run did not record slots: not `--api native`, or not a
// per-slot profile).
func slotNote(live, predicted string) (string, error) {
	a, err := CompareSlots(live, predicted)
	if err != nil || a.N < minLoneRequests {
		return "", err
	}
	return fmt.Sprintf("slot check: the simulated engines put %d of the %d requests whose slot both sides name (%.0f %%) on a slot "+
		"whose previous request was the one the server's slot had served before it (llama.cpp's id_slot): the slot choice (longest shared "+
		"prefix above the similarity threshold, else the least recently used slot) decides the cache hit and the save or restore",
		a.Same, a.N, 100*float64(a.Same)/float64(a.N)), nil
}
