package results

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// MergeStats describes a merge.
type MergeStats struct {
	// Shards is the number of files merged; Results and Events the lines
	// written; Truncated the shards whose last line was cut off.
	Shards, Results, Events, Truncated int
}

// Merge combines shard results files into one at out, streaming (memory
// does not grow with requests): the first shard's header with Shards set
// and Shard cleared, every shard's Results (Seq renumbered) and Events in
// shard order, and a stop line whose reason is "done" only when every
// shard finished. Reports rebuild their histograms from the merged
// Results, so percentiles cover all requests and are never averaged
// across shards.
func Merge(out string, paths []string) (MergeStats, error) {
	st := MergeStats{Shards: len(paths)}
	if len(paths) == 0 {
		return st, errors.New("merge: no shard files")
	}
	h, err := checkShards(paths)
	if err != nil {
		return st, err
	}
	h.Shard, h.Shards = "", len(paths)
	w, err := Create(out, h)
	if err != nil {
		return st, err
	}
	stop := Stop{Reason: StopDone}
	for _, p := range paths {
		s, err := copyShard(w, p, &st)
		if err != nil {
			w.Close(Stop{Reason: StopError(err)})
			return st, err
		}
		stop = mergeStop(stop, s)
	}
	return st, w.Close(stop)
}

func openResults(path string) (*Reader, io.Closer, error) {
	rd, c, err := Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("merge: %w", err)
	}
	return rd, c, nil
}

// checkShards reads every shard's header and returns the first one. The
// shards must be different shards of one Run: the same policy, trace,
// mode and seed, and no shard given twice (it would count twice).
func checkShards(paths []string) (Header, error) {
	var first Header
	seen := map[string]string{}
	for i, p := range paths {
		h, err := ReadHeader(p)
		if err != nil {
			return first, fmt.Errorf("merge: %w", err)
		}
		if i == 0 {
			first = h
		}
		switch {
		case h.Policy != first.Policy || h.Trace != first.Trace || h.Mode != first.Mode || h.Seed != first.Seed:
			return first, fmt.Errorf("merge: %s is another run (policy %s, trace %s, mode %s, seed %d) than %s "+
				"(policy %s, trace %s, mode %s, seed %d)", p, h.Policy, h.Trace, h.Mode, h.Seed, paths[0],
				first.Policy, first.Trace, first.Mode, first.Seed)
		case h.Shard != "" && seen[h.Shard] != "":
			return first, fmt.Errorf("merge: %s and %s are both shard %s", seen[h.Shard], p, h.Shard)
		}
		seen[h.Shard] = p
	}
	return first, nil
}

// copyShard streams one shard's lines into w and returns its reader (for
// its stop line).
func copyShard(w *Writer, path string, st *MergeStats) (*Reader, error) {
	rd, f, err := openResults(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for {
		r, e, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("merge: %w", err)
		}
		if r != nil {
			r.Seq = int64(st.Results)
			st.Results++
			err = w.WriteResult(r)
		} else {
			st.Events++
			err = w.WriteEvent(e)
		}
		if err != nil {
			return nil, err
		}
	}
	if rd.Truncated {
		st.Truncated++
	}
	return rd, nil
}

// mergeStop keeps the longest elapsed time and the first reason other
// than "done", sums counters and rates among the extras, and keeps the
// largest of each percentile or maximum, of each host CPU share and of
// the scraped-lateness mark (a shard's mock step lateness p99 or host
// steal is not additive: the merged figure is the worst shard's).
func mergeStop(acc Stop, rd *Reader) Stop {
	if rd.Stop == nil {
		acc.Reason = StopIncomplete
		return acc
	}
	if rd.Stop.Reason != StopDone && acc.Reason == StopDone {
		acc.Reason = rd.Stop.Reason
	}
	acc.Elapsed = max(acc.Elapsed, rd.Stop.Elapsed)
	for k, v := range rd.Stop.Extra {
		if acc.Extra == nil {
			acc.Extra = map[string]float64{}
		}
		if old, seen := acc.Extra[k]; seen && isWorstShardKey(k) {
			acc.Extra[k] = max(old, v)
		} else {
			acc.Extra[k] += v
		}
	}
	return acc
}

// isWorstShardKey reports whether a stop extra is a percentile or a
// maximum (named …_pNN… or …_max…), a share of the host's CPU time
// (host_…_pct) or a mark (ExtraMockLateScraped), which shards cannot add
// up.
func isWorstShardKey(k string) bool {
	if k == ExtraMockLateScraped || strings.HasPrefix(k, "host_") && strings.HasSuffix(k, "_pct") {
		return true
	}
	for _, part := range strings.Split(k, "_") {
		if part == "max" || len(part) > 1 && part[0] == 'p' && strings.Trim(part[1:], "0123456789") == "" {
			return true
		}
	}
	return false
}
