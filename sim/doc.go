// Package sim runs a Workload against simulated engines in virtual time:
// N copies of the mock server's step engine (mockserver/engine) driven by
// an event loop over arrivals and engine steps, with no HTTP and no
// sleeping. It drives replay's Dispatcher and session gate, so Routers
// and Queues behave as in a real-time Run, and hands out the same Results
// and stop record, which replay's results file and the reports read.
package sim
