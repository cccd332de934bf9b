package predict

import (
	"fmt"

	"github.com/tracebench/tracebench/results"
)

// place is where a request ran: its server and slot.
type place struct{ backend, slot int }

// slotPlaces reads the server and slot of every successful request of
// the results file at path that names its slot, by request ID.
func slotPlaces(path string) (map[string]place, error) {
	out := map[string]place{}
	err := results.EachResult(path, nil, func(r *results.Result) error {
		if r.OK() && r.Slot != nil {
			out[r.ID] = place{r.Backend, *r.Slot}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("predict: %w", err)
	}
	return out, nil
}

// SlotAgreement counts the requests whose slot both the measured run
// (llama.cpp's id_slot, as `--api native` records it for every request)
// and the simulation (the per-slot cache's slot) name, N, and of those
// the ones the simulation ran on the same server and slot, Same.
type SlotAgreement struct{ N, Same int }

// CompareSlots compares the slots of the measured run at live with
// those of the simulated run at predicted.
func CompareSlots(live, predicted string) (SlotAgreement, error) {
	m, err := slotPlaces(live)
	if err != nil {
		return SlotAgreement{}, err
	}
	p, err := slotPlaces(predicted)
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

// slotNote says how often the simulated engines chose the server's own
// slot; "" when fewer than minLoneRequests requests name theirs on both
// sides (the run did not record slots: not `--api native`, or not a
// per-slot profile).
func slotNote(live, predicted string) (string, error) {
	a, err := CompareSlots(live, predicted)
	if err != nil || a.N < minLoneRequests {
		return "", err
	}
	return fmt.Sprintf("slot check: the simulated engines ran %d of the %d requests whose slot both sides name (%.0f %%) on the "+
		"server and slot the server ran them on (llama.cpp's id_slot): the slot choice (longest shared prefix above the "+
		"similarity threshold, else the least recently used slot) and its saves and restores follow the server's where these agree",
		a.Same, a.N, 100*float64(a.Same)/float64(a.N)), nil
}
