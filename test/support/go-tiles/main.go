// Command go-tiles reads a Custodian tenant's audit log as the transparency ecosystem does,
// through C2SP tlog-tiles, with none of Custodian's code: transparency-dev/tessera's client
// fetches the checkpoint, tiles and entry bundles and builds the proofs; golang.org/x/mod's
// sumdb/note opens the note under the served verifier key and sumdb/tlog's TileHashReader
// checks every tile it reads against the signed root; transparency-dev/merkle verifies.
//
// Usage: go-tiles -log <URL of the log's root, ending /audit/log/> -vkey <verifier key>
// -origin <checkpoint origin> [-auth "Bearer <key>"] [-old <file holding an earlier note>]
// [-bundles] (also read every entry bundle: needs an admin or auditor key).
// Prints one line per check ("OK …"); on the first failure prints "FAIL …" and exits 1.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/transparency-dev/merkle/compact"
	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
	"github.com/transparency-dev/tessera/api/layout"
	"github.com/transparency-dev/tessera/client"
	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

var checks int

func ok(format string, args ...any) {
	checks++
	fmt.Printf("OK "+format+"\n", args...)
}

func fail(format string, args ...any) {
	fmt.Printf("FAIL "+format+"\n", args...)
	os.Exit(1)
}

// tileReader serves x/mod's tlog.TileHashReader from the log's tlog-tiles paths (x/mod
// names tiles with their height; the C2SP layout does not).
type tileReader struct {
	ctx context.Context
	f   *client.HTTPFetcher
}

func (tileReader) Height() int { return 8 }

func (r tileReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	out := make([][]byte, len(tiles))
	for i, t := range tiles {
		p := uint8(0)
		if t.W < 256 {
			p = uint8(t.W)
		}
		data, err := r.f.ReadTile(r.ctx, uint64(t.L), uint64(t.N), p)
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

func (tileReader) SaveTiles([]tlog.Tile, [][]byte) {}

// opened opens a checkpoint note with x/mod's note package under the verifier key.
func opened(text []byte, v note.Verifier, origin string) tlog.Tree {
	n, err := note.Open(text, note.VerifierList(v))
	if err != nil {
		fail("note.Open: %v", err)
	}
	lines := strings.Split(n.Text, "\n")
	if len(lines) < 4 || lines[0] != origin {
		fail("checkpoint body: want origin %q, got %q", origin, lines[0])
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail("checkpoint size: %v", err)
	}
	root, err := tlog.ParseHash(lines[2])
	if err != nil {
		fail("checkpoint root: %v", err)
	}
	return tlog.Tree{N: size, Hash: root}
}

func main() {
	logURL := flag.String("log", "", "the log's root URL (…/audit/log/)")
	vkey := flag.String("vkey", "", "the log's note verifier key")
	origin := flag.String("origin", "", "the checkpoint origin")
	auth := flag.String("auth", "", "Authorization header value")
	old := flag.String("old", "", "a file holding an earlier checkpoint note of the same log")
	bundles := flag.Bool("bundles", false, "read every entry bundle and check it against the tiles and the root")
	flag.Parse()
	ctx := context.Background()

	u, err := url.Parse(*logURL)
	if err != nil {
		fail("-log: %v", err)
	}
	f, err := client.NewHTTPFetcher(u, nil)
	if err != nil {
		fail("NewHTTPFetcher: %v", err)
	}
	if *auth != "" {
		f.SetAuthorizationHeader(*auth)
	}
	v, err := note.NewVerifier(*vkey)
	if err != nil {
		fail("note.NewVerifier: %v", err)
	}

	// The checkpoint, twice: tessera's client (formats/log) and x/mod's note package.
	cp, raw, _, err := client.FetchCheckpoint(ctx, f.ReadCheckpoint, v, *origin)
	if err != nil {
		fail("client.FetchCheckpoint: %v", err)
	}
	tree := opened(raw, v, *origin)
	if uint64(tree.N) != cp.Size || !bytes.Equal(tree.Hash[:], cp.Hash) {
		fail("tessera and x/mod read different checkpoints")
	}
	ok("checkpoint opened under the vkey by tessera client.FetchCheckpoint and x/mod note.Open: size %d", cp.Size)
	if cp.Size == 0 {
		fail("the log is empty")
	}

	// Every leaf hash, read from the level-0 tiles through x/mod's TileHashReader, which checks
	// each tile it reads against the signed root before answering.
	hr := tlog.TileHashReader(tree, tileReader{ctx, f})
	indexes := make([]int64, cp.Size)
	for i := range indexes {
		indexes[i] = tlog.StoredHashIndex(0, int64(i))
	}
	leaves, err := hr.ReadHashes(indexes)
	if err != nil {
		fail("tlog.TileHashReader.ReadHashes (every leaf): %v", err)
	}
	th, err := tlog.TreeHash(tree.N, hr)
	if err != nil || th != tree.Hash {
		fail("tlog.TreeHash over the tiles: %v (%v)", th, err)
	}
	ok("x/mod tlog.TileHashReader: all %d leaf hashes read from tiles, each tile checked against the root; tlog.TreeHash equals the note's root", len(leaves))

	// Inclusion proofs of sampled entries, built by tessera's ProofBuilder from the tiles.
	pb, err := client.NewProofBuilder(ctx, cp.Size, f.ReadTile)
	if err != nil {
		fail("client.NewProofBuilder: %v", err)
	}
	samples := map[uint64]bool{0: true, cp.Size - 1: true, cp.Size / 2: true}
	for _, i := range []uint64{1, 255, 256, 257, 511, 512} {
		if i < cp.Size {
			samples[i] = true
		}
	}
	for i := uint64(0); i < cp.Size; i += 97 {
		samples[i] = true
	}
	for i := range samples {
		p, err := pb.InclusionProof(ctx, i)
		if err != nil {
			fail("ProofBuilder.InclusionProof(%d): %v", i, err)
		}
		if err := proof.VerifyInclusion(rfc6962.DefaultHasher, i, cp.Size, leaves[i][:], p, cp.Hash); err != nil {
			fail("merkle proof.VerifyInclusion(%d): %v", i, err)
		}
		// And x/mod's own proof from the same tiles.
		rp, err := tlog.ProveRecord(tree.N, int64(i), hr)
		if err != nil || tlog.CheckRecord(rp, tree.N, tree.Hash, int64(i), leaves[i]) != nil {
			fail("x/mod tlog.ProveRecord/CheckRecord(%d): %v", i, err)
		}
	}
	ok("inclusion proofs of %d sampled entries built by tessera ProofBuilder and x/mod tlog.ProveRecord, verified against the root", len(samples))

	// A consistency proof from an earlier checkpoint to this one.
	if *old != "" {
		text, err := os.ReadFile(*old)
		if err != nil {
			fail("-old: %v", err)
		}
		was := opened(text, v, *origin)
		p, err := pb.ConsistencyProof(ctx, uint64(was.N), cp.Size)
		if err != nil {
			fail("ProofBuilder.ConsistencyProof(%d, %d): %v", was.N, cp.Size, err)
		}
		if err := proof.VerifyConsistency(rfc6962.DefaultHasher, uint64(was.N), cp.Size, p, was.Hash[:], cp.Hash); err != nil {
			fail("merkle proof.VerifyConsistency(%d, %d): %v", was.N, cp.Size, err)
		}
		tp, err := tlog.ProveTree(tree.N, was.N, hr)
		if err != nil || tlog.CheckTree(tp, tree.N, tree.Hash, was.N, was.Hash) != nil {
			fail("x/mod tlog.ProveTree/CheckTree(%d, %d): %v", was.N, tree.N, err)
		}
		ok("consistency proof %d -> %d built by tessera ProofBuilder and x/mod tlog.ProveTree, verified against both notes' roots", was.N, cp.Size)
	}

	// Every entry bundle, read by tessera's client: each entry hashes to its leaf in the tiles,
	// and the leaves recomputed from the entries alone give the note's root.
	if *bundles {
		rf := compact.RangeFactory{Hash: rfc6962.DefaultHasher.HashChildren}
		cr := rf.NewEmptyRange(0)
		n := uint64(0)
		count := 0
		for b := uint64(0); b*layout.EntryBundleWidth < cp.Size; b++ {
			bundle, err := client.GetEntryBundle(ctx, f.ReadEntryBundle, b, cp.Size)
			if err != nil {
				fail("client.GetEntryBundle(%d): %v", b, err)
			}
			want := int(min(cp.Size-b*layout.EntryBundleWidth, layout.EntryBundleWidth))
			if len(bundle.Entries) != want {
				fail("bundle %d holds %d entries, want %d", b, len(bundle.Entries), want)
			}
			for _, e := range bundle.Entries {
				h := rfc6962.DefaultHasher.HashLeaf(e)
				if !bytes.Equal(h, leaves[n][:]) {
					fail("entry %d: its line does not hash to the leaf in tile 0", n)
				}
				if !strings.Contains(string(e), fmt.Sprintf(`"seq":%d`, n)) {
					fail("entry %d: its line does not carry its index", n)
				}
				if err := cr.Append(h, nil); err != nil {
					fail("compact range: %v", err)
				}
				n++
			}
			count++
		}
		root, err := cr.GetRootHash(nil)
		if err != nil || !bytes.Equal(root, cp.Hash) {
			fail("the root recomputed from the entry bundles differs from the note's")
		}
		ok("%d entry bundles read by tessera client.GetEntryBundle: every entry hashes to its leaf in the tiles; the root recomputed from the entries equals the note's", count)
	}

	// Tampering is caught: a flipped byte in a hash tile is refused by x/mod's tile check.
	bad := tlog.TileHashReader(tree, tamperedReader{tileReader{ctx, f}})
	if _, err := bad.ReadHashes([]int64{tlog.StoredHashIndex(0, int64(cp.Size-1))}); err == nil {
		fail("a tampered tile was accepted")
	}
	ok("a tile with one byte changed is refused by x/mod tlog.TileHashReader")
	fmt.Printf("PASS %d checks\n", checks)
}

// tamperedReader changes one byte of every tile it reads.
type tamperedReader struct{ tileReader }

func (r tamperedReader) ReadTiles(tiles []tlog.Tile) ([][]byte, error) {
	data, err := r.tileReader.ReadTiles(tiles)
	for _, d := range data {
		if len(d) > 0 {
			d[len(d)-1] ^= 1
		}
	}
	return data, err
}
