package predict

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/tracebench/tracebench/bench"
	"github.com/tracebench/tracebench/metrics"
	"github.com/tracebench/tracebench/mockserver/profile"
	"github.com/tracebench/tracebench/results"
	"github.com/tracebench/tracebench/verdict"
)

// DirSpec predicts every run of a `bench` output directory: each
// policy's results file of every seed (Dir/results-POLICY.jsonl and
// Dir/seed-K/results-POLICY.jsonl), as `tracebench predict DIR` does.
type DirSpec struct {
	// Dir is the bench output directory.
	Dir string
	// Profile is the simulated engines' profile (required).
	Profile *profile.Profile
	// Out receives the simulated results files, laid out as in Dir
	// (required).
	Out string
	// SimSeed seeds the simulated engines' jitter (default 1).
	SimSeed int64
	// Report holds the SLO of the Summaries and verdicts.
	Report metrics.Options
	// ErrOut receives the simulated runs' warnings (nil: none).
	ErrOut io.Writer
}

// DirResult is every policy's prediction and how the policies'
// order agrees between the measured runs and the simulated ones.
type DirResult struct {
	// Policies are the predicted policies in name order.
	Policies []PolicyPrediction
	// Skipped names each results file not predicted and why (missing,
	// partial, from another workload), one line each.
	Skipped []string
	// Notes are warnings about the predictions (cache model, versions).
	Notes []string
	// Agreement is the rank agreement over the policies, per metric.
	Agreement []verdict.RankAgreement
	// Live and Sim are the verdicts on the measured and on the simulated
	// runs (nil with fewer than two policies).
	Live, Sim *verdict.Verdict
}

// PolicyPrediction is one policy's runs, one per seed, and the mean
// over the seeds of every compared figure.
type PolicyPrediction struct {
	Policy string
	Runs   []*Result
	Mean   *verdict.Prediction
}

// Dir predicts every run of ps.Dir. A results file that is
// missing for one seed, partial (no stop record, or cut off), or whose
// workload differs from the first policy's of its seed is named in
// Skipped; the policy is then left out of the ranks and verdicts (which
// need every seed of every policy), and the rest is predicted.
func Dir(ctx context.Context, ps DirSpec) (*DirResult, error) {
	seeds, policies, err := benchLayout(ps.Dir)
	if err != nil {
		return nil, err
	}
	res := &DirResult{}
	ref := map[string]results.Header{} // the first policy's header per seed dir
	byPolicy := map[string][]*Result{}
	complete := map[string]bool{}
	for _, p := range policies {
		complete[p] = true
		for _, sd := range seeds {
			rel := filepath.Join(sd, "results-"+p+".jsonl")
			pr, why, err := predictOne(ctx, ps, rel, ref)
			var ue bench.UsageError
			if errors.As(err, &ue) || ctx.Err() != nil {
				return nil, err
			}
			if why != "" {
				res.Skipped, complete[p] = append(res.Skipped, rel+": "+why), false
				continue
			}
			byPolicy[p] = append(byPolicy[p], pr)
			for _, n := range pr.Notes {
				if !slices.Contains(res.Notes, n) {
					res.Notes = append(res.Notes, n)
				}
			}
		}
	}
	var ranked []string
	for _, p := range policies {
		if len(byPolicy[p]) == 0 {
			continue
		}
		res.Policies = append(res.Policies, PolicyPrediction{Policy: p, Runs: byPolicy[p], Mean: meanPrediction(ps.Profile.Name, byPolicy[p])})
		if complete[p] {
			ranked = append(ranked, p)
		}
	}
	if len(res.Policies) == 0 {
		return res, fmt.Errorf("%s: no run could be predicted:\n%s", ps.Dir, strings.Join(res.Skipped, "\n"))
	}
	res.decide(ranked)
	return res, nil
}

// predictOne predicts the results file rel of ps.Dir, or says why not.
// ref holds the first readable header of each seed directory. An error
// that would stop every run (a refused profile, an interrupt) is
// returned as well.
func predictOne(ctx context.Context, ps DirSpec, rel string, ref map[string]results.Header) (*Result, string, error) {
	path := filepath.Join(ps.Dir, rel)
	h, why := checkComplete(path)
	if why != "" {
		return nil, why, nil
	}
	seedDir := filepath.Dir(rel)
	r, ok := ref[seedDir]
	if ok {
		if d := workloadDiff(r, h); d != "" {
			return nil, d, nil
		}
	}
	pr, err := Predict(ctx, Spec{Live: path, Profile: ps.Profile, Results: filepath.Join(ps.Out, rel),
		SimSeed: ps.SimSeed, Report: ps.Report, ErrOut: ps.ErrOut})
	if err != nil {
		return nil, whyNot(err), err
	}
	if !ok {
		// Only a run that could be predicted stands for its seed's
		// workload: one whose workload file is gone must not make the
		// others look like another workload.
		ref[seedDir] = h
	}
	if h.Version != results.Version {
		pr.Notes = append(pr.Notes, fmt.Sprintf("%s: field version is %s, this tracebench is %s: "+
			"its requests were rebuilt by this version's generators", rel, h.Version, results.Version))
	}
	return pr, "", nil
}

// benchLayout lists the seed directories ("." and seed-K in K order)
// and the policies of a bench directory (from every seed's results files).
func benchLayout(dir string) (seeds, policies []string, err error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		return nil, nil, fmt.Errorf("%s: not a bench output directory", dir)
	}
	seeds = []string{"."}
	ks, _ := filepath.Glob(filepath.Join(dir, "seed-*"))
	sort.Slice(ks, func(i, j int) bool { return seedOf(ks[i]) < seedOf(ks[j]) })
	for _, k := range ks {
		if seedOf(k) > 0 {
			seeds = append(seeds, filepath.Base(k))
		}
	}
	for _, sd := range seeds {
		fs, _ := filepath.Glob(filepath.Join(dir, sd, "results-*.jsonl"))
		for _, f := range fs {
			p := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "results-"), ".jsonl")
			if !slices.Contains(policies, p) {
				policies = append(policies, p)
			}
		}
	}
	if len(policies) == 0 {
		return nil, nil, fmt.Errorf("%s: no results-POLICY.jsonl file: not a bench output directory", dir)
	}
	sort.Strings(policies)
	return seeds, policies, nil
}

// seedOf is K of a seed-K directory (0 when it is not one).
func seedOf(path string) int {
	k, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(path), "seed-"))
	if err != nil || k < 1 {
		return 0
	}
	return k
}

// checkComplete reads a results file through and returns its header, or
// why it cannot be predicted: missing, unreadable, or partial (cut off,
// or no stop record: the run was killed).
func checkComplete(path string) (results.Header, string) {
	rd, c, err := results.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return results.Header{}, "missing"
	}
	if err != nil {
		return results.Header{}, err.Error()
	}
	defer c.Close()
	for {
		if _, _, err := rd.Next(); err == io.EOF {
			break
		} else if err != nil {
			return rd.Header, "partial: " + err.Error()
		}
	}
	switch {
	case rd.Truncated:
		return rd.Header, "partial: its last line is cut off"
	case rd.Stop == nil:
		return rd.Header, "partial: no stop record (the run was killed)"
	}
	return rd.Header, ""
}

// decide builds the rank agreement and both verdicts over the policies
// predicted for every seed.
func (res *DirResult) decide(ranked []string) {
	var preds []*verdict.Prediction
	live, sim := map[string][]*metrics.Summary{}, map[string][]*metrics.Summary{}
	for _, pp := range res.Policies {
		if !slices.Contains(ranked, pp.Policy) {
			continue
		}
		preds = append(preds, pp.Mean)
		for _, r := range pp.Runs {
			live[pp.Policy], sim[pp.Policy] = append(live[pp.Policy], r.Measured), append(sim[pp.Policy], r.Predicted)
		}
	}
	res.Agreement = verdict.RankAgreements(ranked, preds)
	res.Live, res.Sim = verdict.DecideVerdict(ranked, live), verdict.DecideVerdict(ranked, sim)
}

// meanPrediction is a policy's comparison averaged over its seeds.
func meanPrediction(profile string, runs []*Result) *verdict.Prediction {
	preds := make([]*verdict.Prediction, len(runs))
	for i, r := range runs {
		preds[i] = r.Prediction
	}
	return verdict.MeanPrediction(profile, preds)
}

// workloadDiff names the first workload field in which run h differs
// from ref, the first run of its seed ("" when none does).
func workloadDiff(ref, h results.Header) string {
	var a, b bench.Workload
	if ref.Config.Decode(results.HeaderPart{Name: "workload", Into: &a}) != nil ||
		h.Config.Decode(results.HeaderPart{Name: "workload", Into: &b}) != nil {
		return ""
	}
	av, bv := reflect.ValueOf(a), reflect.ValueOf(b)
	for i := range av.NumField() {
		f := av.Type().Field(i)
		if !f.IsExported() || reflect.DeepEqual(av.Field(i).Interface(), bv.Field(i).Interface()) {
			continue
		}
		return fmt.Sprintf("from another workload: field %s is %v, the %s run of this seed has %v",
			f.Name, bv.Field(i).Interface(), ref.Policy, av.Field(i).Interface())
	}
	if ref.Version != h.Version {
		return fmt.Sprintf("from another version: field version is %s, the %s run of this seed has %s", h.Version, ref.Policy, ref.Version)
	}
	return ""
}

// whyNot says why a run could not be predicted: its workload file's name
// when that is what is missing, else the error.
func whyNot(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("its workload file %s is missing (predict rebuilds the run's requests from it)", pe.Path)
	}
	return err.Error()
}
