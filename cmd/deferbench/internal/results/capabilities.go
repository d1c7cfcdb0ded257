package results

import (
	"strings"

	"github.com/deferbench/deferbench/deferral"
	"golang.org/x/perf/benchfmt"
)

// A run declares each strategy's deferral.Capabilities in bench.txt, as three file-level
// configuration lines per strategy, so that a report rebuilt later reads what the strategy
// declared when it was measured, never what today's code declares:
//
//	capabilities-cmdbuffer: reproducible-order sort-keys
//	order-cmdbuffer: sort key, then recorder creation order, then FIFO within a recorder
//	reads-cmdbuffer: reads touch the world directly: …
//
// The capabilities line lists the boolean capabilities the strategy declares (the words of
// capabilityWords), or "none". The lines are the same for every result of a file, so they
// neither split a `benchstat -col /strategy` table nor keep two runs of the same strategies
// apart; compare treats them as annotations.
const (
	CapabilitiesPrefix = "capabilities-"
	OrderPrefix        = "order-"
	ReadsPrefix        = "reads-"
)

// capabilityWords names the boolean fields of deferral.Capabilities in the capabilities line.
var capabilityWords = []struct {
	word string
	get  func(*deferral.Capabilities) *bool
}{
	{"reproducible-order", func(c *deferral.Capabilities) *bool { return &c.ReproducibleOrder }},
	{"sort-keys", func(c *deferral.Capabilities) *bool { return &c.SortKeys }},
	{"reads-previous-version", func(c *deferral.Capabilities) *bool { return &c.ReadsPreviousVersion }},
	{"reads-wait-for-staged", func(c *deferral.Capabilities) *bool { return &c.ReadsWaitForStaged }},
	{"typed-allocation-free", func(c *deferral.Capabilities) *bool { return &c.TypedAllocationFree }},
	{"batches-per-entity", func(c *deferral.Capabilities) *bool { return &c.BatchesPerEntity }},
	{"bulk-runs", func(c *deferral.Capabilities) *bool { return &c.BulkRuns }},
}

// CapabilityConfig returns the configuration lines that declare strategy's capabilities c. A
// strategy name is a configuration key's suffix: it must be lower case without spaces, as the
// harness's names are.
func CapabilityConfig(strategy string, c deferral.Capabilities) []Config {
	var words []string
	for _, w := range capabilityWords {
		if *w.get(&c) {
			words = append(words, w.word)
		}
	}
	if len(words) == 0 {
		words = []string{"none"}
	}
	cfg := []Config{{CapabilitiesPrefix + strategy, strings.Join(words, " ")}}
	if c.Order != "" {
		cfg = append(cfg, Config{OrderPrefix + strategy, c.Order})
	}
	if c.Reads != "" {
		cfg = append(cfg, Config{ReadsPrefix + strategy, c.Reads})
	}
	return cfg
}

// Capabilities returns the capabilities that results' file-level configuration declares, by
// strategy; nil when it declares none (a bench.txt written before runs declared them, or by
// go test). Unknown words in a capabilities line are ignored.
func Capabilities(results []*benchfmt.Result) map[string]deferral.Capabilities {
	var out map[string]deferral.Capabilities
	get := func(s string) deferral.Capabilities {
		if out == nil {
			out = map[string]deferral.Capabilities{}
		}
		return out[s]
	}
	for _, c := range FileConfig(results) {
		switch {
		case strings.HasPrefix(c.Key, CapabilitiesPrefix):
			s := strings.TrimPrefix(c.Key, CapabilitiesPrefix)
			caps := get(s)
			for _, word := range strings.Fields(c.Value) {
				for _, w := range capabilityWords {
					if w.word == word {
						*w.get(&caps) = true
					}
				}
			}
			out[s] = caps
		case strings.HasPrefix(c.Key, OrderPrefix):
			s := strings.TrimPrefix(c.Key, OrderPrefix)
			caps := get(s)
			caps.Order = c.Value
			out[s] = caps
		case strings.HasPrefix(c.Key, ReadsPrefix):
			s := strings.TrimPrefix(c.Key, ReadsPrefix)
			caps := get(s)
			caps.Reads = c.Value
			out[s] = caps
		}
	}
	return out
}

// IsCapabilityKey reports whether key is one of the lines CapabilityConfig writes.
func IsCapabilityKey(key string) bool {
	for _, p := range []string{CapabilitiesPrefix, OrderPrefix, ReadsPrefix} {
		if strings.HasPrefix(key, p) && len(key) > len(p) {
			return true
		}
	}
	return false
}
