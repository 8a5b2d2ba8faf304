// Command witness-tool is the test suite's hand on the witness side of c2sp.org/tlog-witness,
// written with the ecosystem's own packages: it makes a witness key in the format omniwitness
// reads, and verifies a witness's cosignature on a note with golang.org/x/mod/sumdb/note.
//
//	witness-tool keygen <name>   prints the private key (note format) and the cosignature/v1 verifier key, one a line
//	witness-tool verify <vkey>   reads a note on stdin; exit 0 and "verified <name> <size> <unix time>" when <vkey> cosigned it
package main

import (
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/transparency-dev/formats/log"
	fnote "github.com/transparency-dev/formats/note"
	"golang.org/x/mod/sumdb/note"
)

func main() {
	if len(os.Args) != 3 {
		fail("usage: witness-tool keygen <name> | verify <vkey>")
	}
	switch os.Args[1] {
	case "keygen":
		skey, vkey, err := note.GenerateKey(rand.Reader, os.Args[2])
		check(err)
		cosig, err := fnote.VKeyToCosignatureV1(vkey)
		check(err)
		fmt.Println(skey)
		fmt.Println(cosig)
	case "verify":
		v, err := fnote.NewVerifierForCosignatureV1(os.Args[2])
		check(err)
		text, err := io.ReadAll(os.Stdin)
		check(err)
		n, err := note.Open(text, note.VerifierList(v))
		check(err)
		origin, _, _ := strings.Cut(n.Text, "\n")
		cp := &log.Checkpoint{}
		_, err = cp.Unmarshal([]byte(n.Text))
		check(err)
		ts, err := fnote.CoSigV1Timestamp(n.Sigs[0])
		check(err)
		fmt.Printf("verified %s %s %d %d\n", v.Name(), origin, cp.Size, ts.Unix())
	default:
		fail("unknown command " + os.Args[1])
	}
}

func check(err error) {
	if err != nil {
		fail(err.Error())
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(1)
}
