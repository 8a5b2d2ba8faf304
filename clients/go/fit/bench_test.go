package fit

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// BenchmarkWeighCorpus weighs the 252 corpus documents once per iteration (bench/weigh-languages.ts
// prints it beside the TypeScript, Python and js-tiktoken figures). Besides the wall time it
// reports cpu-ns/op, the processor time, which a busy machine's other processes do not inflate.
func BenchmarkWeighCorpus(b *testing.B) {
	dir := filepath.Join(root, "test", "fixtures", "fit-corpus", "docs")
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	texts := make([]string, len(names))
	for i, n := range names {
		raw, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			b.Fatal(err)
		}
		texts[i] = string(raw)
	}
	b.ResetTimer()
	start := cpuTime()
	for i := 0; i < b.N; i++ {
		for _, t := range texts {
			Weigh(t)
		}
	}
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
