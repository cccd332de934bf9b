package results

// The keys of a results file's stop record (Stop.Extra), one constant
// each: the replay writes them, the reports, the merge and the
// calibration read them by these names only. A KV-event router's
// per-backend figures are named by KVExtraKey.

// Stop.Extra keys of the rates of a Run: the requested rate (the trace's
// or the Workload's arrivals) and the achieved one (the sends), in req/s
// over the span from the first Request to the last; absent with fewer
// than two Requests.
const (
	ExtraRequestedRate = "requested_rate"
	ExtraAchievedRate  = "achieved_rate"
)

// Stop.Extra keys of the servers' own counters over a Run, summed over
// the Backends: from the simulated engines, or scraped from /metrics
// (the first scrape subtracted). Absent when no server counted them.
const (
	// ExtraPrefixQueries and ExtraPrefixHits are the prompt tokens looked
	// up in the servers' prefix caches and those found.
	ExtraPrefixQueries = "server_prefix_queries"
	ExtraPrefixHits    = "server_prefix_hits"
	// ExtraPreemptions counts requests the servers preempted.
	ExtraPreemptions = "server_preemptions"
	// ExtraEvictions counts cache blocks the simulated engines evicted
	// (not scraped: servers do not export it).
	ExtraEvictions = "server_evictions"
)

// Stop.Extra keys of the bundled mock server's step lateness, recorded
// by a Run that scrapes a mock (and by the command's in-process fleet);
// absent for other servers.
const (
	// ExtraMockLateP50, ExtraMockLateP99 and ExtraMockLateMax are the
	// median, 99th percentile and largest step lateness, in µs.
	ExtraMockLateP50 = "mock_step_late_p50_us"
	ExtraMockLateP99 = "mock_step_late_p99_us"
	ExtraMockLateMax = "mock_step_late_max_us"
	// ExtraMockSteps is the number of engine steps the mock ran during
	// the Run.
	ExtraMockSteps = "mock_steps"
	// ExtraMockLateScraped is 1 when the lateness figures were scraped
	// from the mocks' /metrics: they then cover each mock's lifetime
	// (every step since it started, steps before this Run included),
	// while ExtraMockSteps counts this Run's steps only. The command's
	// in-process fleet (results header Mode "mock") replaces the
	// lateness figures with its own, which cover just its Run, as a
	// fresh fleet is started for each.
	ExtraMockLateScraped = "mock_lateness_scraped"
)

// Stop.Extra keys of a Run that scraped: how many scrapes it tried and
// how many failed (an error, a timeout, an unparsable page).
const (
	ExtraScrapes        = "scrapes"
	ExtraScrapeFailures = "scrape_failures"
	// ExtraScrapeUnknown counts the Backends whose pages, scraped
	// successfully, never carried any of the dialect's names.
	ExtraScrapeUnknown = "scrape_unknown_backends"
)

// Stop.Extra keys of the machine's CPU time over a real-time Run (Linux
// only; absent elsewhere and for --sim).
const (
	// ExtraHostStealPct is the share of the machine's CPU time the
	// hypervisor gave to other guests (CPU steal), in percent.
	ExtraHostStealPct = "host_steal_pct"
	// ExtraHostBusyPct is the share of the machine's CPU time spent
	// running anything (this process included), in percent.
	ExtraHostBusyPct = "host_busy_pct"
	// ExtraHostLoad1 is the machine's 1-minute load average at the end
	// of the Run (/proc/loadavg: threads running or waiting to run).
	ExtraHostLoad1 = "host_load1"
	// ExtraHostCPUs is how many CPUs the client could run on.
	ExtraHostCPUs = "host_cpus"
)

// HostLoadPerCPU is the 1-minute load average per CPU above which a run's
// machine was contended: each runnable thread waited about half the time
// for a CPU. Two one-thread llama-servers bound to the two CPUs of a
// quiet machine, with the client, measured 1.2–2.3 on 2 CPUs while
// 96–100 % busy (a 60 s probe, 2026-11-29); the same probe beside other
// work ran at a load average of about 20.
const HostLoadPerCPU = 2.0

// HostLoadContended reports whether a load average of load on cpus CPUs
// passes HostLoadPerCPU a CPU (false when cpus is under 1 or load NaN).
func HostLoadContended(load, cpus float64) bool {
	return cpus >= 1 && load > HostLoadPerCPU*cpus
}
