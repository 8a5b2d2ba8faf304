package toolcost

import (
	"testing"

	"custodian/fit"
)

func TestCountIsWeigh(t *testing.T) {
	for _, s := range []string{"", "hello world", "createProjectionRunner 123 😀", "  \n\n  x"} {
		if Count(s) != fit.Weigh(s) {
			t.Errorf("Count(%q) = %d, Weigh = %d", s, Count(s), fit.Weigh(s))
		}
	}
	if Count("The quick brown fox jumps over the lazy dog.") != 10 {
		t.Errorf("Count of the pangram = %d, want 10", Count("The quick brown fox jumps over the lazy dog."))
	}
}
