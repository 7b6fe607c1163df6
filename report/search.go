package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The search index lets the pages find instances by words of their problem statement and of
// their trajectory (the model's replies, its commands, their outputs, the loop's messages) without
// loading any trajectory. It is an inverted index cut into shards by the first two characters
// of a term, each a small script (data/search/<key>.js) that the page loads the first time a
// query needs it: a one-word search reads one shard.
//
// Terms are the maximal runs of letters, digits and underscores, lower-cased, of at least two
// characters, cut to maxTerm characters; long hexadecimal strings (hashes, addresses) and very
// long numbers are left out. A document is an instance's problem statement (doc i, shared by all
// runs) or the trajectory of instance i in run r (doc N + r·N + i, with N instances). A shard is
// one string of lines "term<TAB>postings", sorted by term, where postings are the gaps between
// the term's sorted document numbers, each written as a little-endian base-32 varint over a
// URL-safe 64-letter alphabet (a letter's bit 5 says another follows). The page matches a query
// word as a prefix of terms, and requires every word.

const (
	minTerm = 2
	maxTerm = 40
)

// vlqAlphabet holds 64 letters: value v & 31 is the digit, v & 32 says more digits follow.
const vlqAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// terms calls f with every term of text (with repeats).
func terms(text string, f func(string)) {
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := text[start:end]
		start = -1
		if utf8.RuneCountInString(w) < minTerm {
			return
		}
		w = strings.ToLower(w)
		if n := utf8.RuneCountInString(w); n > maxTerm {
			w = string([]rune(w)[:maxTerm])
		}
		if skipTerm(w) {
			return
		}
		f(w)
	}
	for i, c := range text {
		if c == '_' || unicode.IsLetter(c) || unicode.IsDigit(c) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
	}
	flush(len(text))
}

// skipTerm leaves out hexadecimal strings of 16 characters or more with a digit (hashes, object
// ids) and numbers of more than 10 digits: they bloat the index and nobody searches for them by
// prefix.
func skipTerm(w string) bool {
	if len(w) < 11 {
		return false
	}
	digits, hex := true, true
	for i := 0; i < len(w); i++ {
		c := w[i]
		isDigit := c >= '0' && c <= '9'
		digits = digits && isDigit
		hex = hex && (isDigit || c >= 'a' && c <= 'f')
	}
	return digits || hex && len(w) >= 16 && strings.ContainsAny(w, "0123456789")
}

// shardKey is the shard of a term: its first two characters when they are ASCII letters,
// digits or underscores, else "~" (one shard for terms starting otherwise).
func shardKey(term string) string {
	if len(term) < 2 {
		return "~"
	}
	for i := 0; i < 2; i++ {
		c := term[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return "~"
		}
	}
	return term[:2]
}

// indexBuilder collects the terms of the documents.
type indexBuilder struct {
	postings map[string][]uint32
	docs     int
}

func newIndexBuilder() *indexBuilder { return &indexBuilder{postings: map[string][]uint32{}} }

// docTerms returns the distinct terms of a text, in no particular order.
func docTerms(text string) []string {
	seen := map[string]struct{}{}
	terms(text, func(w string) {
		if _, ok := seen[w]; !ok {
			seen[w] = struct{}{}
		}
	})
	out := make([]string, 0, len(seen))
	for w := range seen {
		out = append(out, strings.Clone(w)) // do not keep the whole text alive
	}
	return out
}

// add indexes the terms of document doc (docTerms). Documents may come in any order.
func (b *indexBuilder) add(doc uint32, ws []string) {
	if len(ws) == 0 {
		return
	}
	b.docs++
	for _, w := range ws {
		b.postings[w] = append(b.postings[w], doc)
	}
}

// index is a finished index: the shards' contents by key.
type index struct {
	shards map[string][]byte // key → the script's bytes
	terms  int
	docs   int
}

// finish encodes the shards as scripts: SR.shard("<key>", "<lines>").
func (b *indexBuilder) finish() *index {
	byShard := map[string][]string{}
	for w := range b.postings {
		k := shardKey(w)
		byShard[k] = append(byShard[k], w)
	}
	ix := &index{shards: map[string][]byte{}, terms: len(b.postings), docs: b.docs}
	var line []byte
	for k, ws := range byShard {
		sort.Strings(ws)
		var sb strings.Builder
		for n, w := range ws {
			p := b.postings[w]
			slices.Sort(p)
			p = slices.Compact(p)
			if n > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(w)
			sb.WriteByte('\t')
			line = appendPostings(line[:0], p)
			sb.Write(line)
		}
		key, _ := json.Marshal(k)
		body, _ := json.Marshal(sb.String())
		script := make([]byte, 0, len(body)+32)
		script = append(script, "SR.shard("...)
		script = append(script, key...)
		script = append(script, ',')
		script = append(script, body...)
		script = append(script, ");\n"...)
		ix.shards[k] = script
	}
	return ix
}

// appendPostings writes the gaps between the sorted document numbers as base-32 varints.
func appendPostings(dst []byte, docs []uint32) []byte {
	prev := uint32(0)
	for i, d := range docs {
		gap := d - prev
		if i == 0 {
			gap = d
		}
		prev = d
		for {
			v := gap & 31
			gap >>= 5
			if gap != 0 {
				dst = append(dst, vlqAlphabet[v|32])
				continue
			}
			dst = append(dst, vlqAlphabet[v])
			break
		}
	}
	return dst
}

// decodePostings reads what appendPostings wrote (for tests).
func decodePostings(s string) []uint32 {
	var out []uint32
	var cur, shift, prev uint32
	first := true
	for i := 0; i < len(s); i++ {
		v := uint32(strings.IndexByte(vlqAlphabet, s[i]))
		cur |= (v & 31) << shift
		if v&32 != 0 {
			shift += 5
			continue
		}
		if first {
			prev, first = cur, false
		} else {
			prev += cur
		}
		out = append(out, prev)
		cur, shift = 0, 0
	}
	return out
}

// size is the total size of the shards in bytes.
func (ix *index) size() int64 {
	var n int64
	for _, s := range ix.shards {
		n += int64(len(s))
	}
	return n
}

func (ix *index) info() *searchInfo {
	si := &searchInfo{Shards: sortedKeys(ix.shards), Bytes: ix.size(), Docs: ix.docs, Terms: ix.terms}
	return si
}

// shortHash is the first 12 hex digits of data's sha256.
func shortHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}
