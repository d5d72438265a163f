// Command regexdiff compares kruise-webhook's regular expressions (webhook/gocompat/regex) with
// Go's regexp on generated patterns: for every pattern, whether regexp.Compile accepts it and
// with which error, and for accepted ones what MatchString answers on generated texts.
//
// Upstream OpenKruise is built with Go 1.23 (golang:1.23.9), whose regexp is the reference, so
// this refuses to run with another release (Go 1.25 changed \p names and case-insensitive
// factoring): `make regexdiff` runs it with GOTOOLCHAIN=go1.23.9.
//
//	go run . -probe build/test/regex-probe -n 1000000 -seed 1
//
// The C side is a small program (probe/probe.c) that reads one case per line on stdin. Each
// difference is printed with the pattern and texts as Go literals; the exit status is 1 when
// there was one.
package main

import (
	"bufio"
	"encoding/hex"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"regexp"
	"regexp/syntax"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

func main() {
	probe := flag.String("probe", "build/test/regex-probe", "the C probe program")
	n := flag.Int("n", 100000, "patterns to generate")
	seed := flag.Int64("seed", 1, "random seed")
	maxDiffs := flag.Int("max-diffs", 20, "stop after this many differences")
	golden := flag.String("golden", "", "write the unit tests' match cases to this file, and stop")
	flag.Parse()
	if !strings.HasPrefix(runtime.Version(), "go1.23.") {
		fmt.Fprintf(os.Stderr, "regexdiff: needs Go 1.23 (upstream's), not %s: run it with GOTOOLCHAIN=go1.23.9\n", runtime.Version())
		os.Exit(2)
	}
	if *golden != "" {
		check(writeGolden(*golden))
		return
	}
	cmd := exec.Command(*probe)
	in, err := cmd.StdinPipe()
	check(err)
	outPipe, err := cmd.StdoutPipe()
	check(err)
	cmd.Stderr = os.Stderr
	check(cmd.Start())
	w := bufio.NewWriterSize(in, 1<<20)
	r := bufio.NewReaderSize(outPipe, 1<<20)

	g := &gen{r: rand.New(rand.NewSource(*seed))}
	start := time.Now()
	var diffs, accepted, refused, texts, matched int
	type pending struct {
		pattern string
		texts   []string
		want    string
	}
	// The cases go to the probe from one goroutine while this one reads its answers: written
	// and read in turn, a long case could fill both pipes.
	cases := make(chan pending, 1024)
	stop := make(chan struct{})
	go func() {
		defer close(cases)
		defer in.Close()
		for i := 0; i < *n; i++ {
			pattern, big := g.pattern()
			var ts []string
			var want string
			var re *regexp.Regexp
			var err error
			if big {
				// Go takes seconds to build the programs of patterns near its limits: only
				// their acceptance is compared (regexp.Compile fails exactly when
				// syntax.Parse does)
				_, err = syntax.Parse(pattern, syntax.Perl)
			} else {
				re, err = regexp.Compile(pattern)
			}
			if err != nil {
				want = "err " + hex.EncodeToString([]byte(err.Error()))
			} else {
				var b strings.Builder
				b.WriteString("ok ")
				if !big {
					ts = g.texts(pattern)
					for _, t := range ts {
						if re.MatchString(t) {
							b.WriteByte('1')
						} else {
							b.WriteByte('0')
						}
					}
					// the tree before Simplify, which is what the limits and the factoring
					// make
					tree, err := syntax.Parse(pattern, syntax.Perl)
					check(err)
					b.WriteString(" " + hex.EncodeToString([]byte(dump(tree))))
				}
				want = b.String()
			}
			if big {
				fmt.Fprint(w, "- ")
			}
			fmt.Fprint(w, hex.EncodeToString([]byte(pattern)))
			for _, t := range ts {
				fmt.Fprint(w, " ", hex.EncodeToString([]byte(t)))
			}
			fmt.Fprint(w, "\n")
			select {
			case cases <- pending{pattern, ts, want}:
			case <-stop:
				return
			}
			if len(cases) == 0 || i%64 == 0 {
				if w.Flush() != nil {
					return // the probe is gone: the reader says why
				}
			}
		}
		w.Flush()
	}()
	for c := range cases {
		line, err := r.ReadString('\n')
		check(err)
		got := strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(c.want, "err ") {
			refused++
		} else {
			accepted++
			texts += len(c.texts)
			if f := strings.SplitN(c.want, " ", 3); len(f) >= 2 {
				matched += strings.Count(f[1], "1")
			}
		}
		if got != c.want {
			diffs++
			fmt.Printf("DIFFERENCE pattern %q\n  texts %q\n  go:   %s\n  ours: %s\n", c.pattern, c.texts, describe(c.want), describe(got))
			if diffs >= *maxDiffs {
				close(stop)
				break
			}
		}
	}
	if diffs < *maxDiffs {
		check(cmd.Wait())
	} else {
		cmd.Process.Kill()
	}
	fmt.Printf("regexdiff: %d patterns (%d accepted, %d refused), %d texts matched (%d matches), %d differences, %s, seed %d, %s\n",
		accepted+refused, accepted, refused, texts, matched, diffs, time.Since(start).Round(time.Millisecond), *seed, runtime.Version())
	if diffs > 0 {
		os.Exit(1)
	}
}

func describe(answer string) string {
	if rest, ok := strings.CutPrefix(answer, "err "); ok {
		b, err := hex.DecodeString(rest)
		if err == nil {
			return fmt.Sprintf("error %q", b)
		}
	}
	if f := strings.SplitN(answer, " ", 3); len(f) == 3 && f[0] == "ok" {
		tree, _ := hex.DecodeString(f[2])
		return fmt.Sprintf("matches %q, tree %s", f[1], tree)
	}
	return answer
}

// dump prints a parse tree as regexp/syntax's own tests do (parse_test.go): an operator name
// and its contents in braces.
func dump(re *syntax.Regexp) string {
	var b strings.Builder
	dumpTo(&b, re)
	return b.String()
}

var opNames = map[syntax.Op]string{
	syntax.OpNoMatch: "no", syntax.OpEmptyMatch: "emp", syntax.OpLiteral: "lit",
	syntax.OpCharClass: "cc", syntax.OpAnyCharNotNL: "dnl", syntax.OpAnyChar: "dot",
	syntax.OpBeginLine: "bol", syntax.OpEndLine: "eol", syntax.OpBeginText: "bot",
	syntax.OpEndText: "eot", syntax.OpWordBoundary: "wb", syntax.OpNoWordBoundary: "nwb",
	syntax.OpCapture: "cap", syntax.OpStar: "star", syntax.OpPlus: "plus",
	syntax.OpQuest: "que", syntax.OpRepeat: "rep", syntax.OpConcat: "cat",
	syntax.OpAlternate: "alt",
}

func dumpTo(b *strings.Builder, re *syntax.Regexp) {
	name, known := opNames[re.Op]
	switch {
	case !known:
		fmt.Fprintf(b, "op%d", re.Op)
	case re.Op == syntax.OpLiteral:
		if len(re.Rune) > 1 {
			b.WriteString("str")
		} else {
			b.WriteString("lit")
		}
		if re.Flags&syntax.FoldCase != 0 {
			for _, r := range re.Rune {
				if unicode.SimpleFold(r) != r {
					b.WriteString("fold")
					break
				}
			}
		}
	default:
		if re.Op >= syntax.OpStar && re.Op <= syntax.OpRepeat && re.Flags&syntax.NonGreedy != 0 {
			b.WriteByte('n')
		}
		b.WriteString(name)
	}
	b.WriteByte('{')
	switch re.Op {
	case syntax.OpEndText:
		if re.Flags&syntax.WasDollar == 0 {
			b.WriteString(`\z`)
		}
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			b.WriteRune(r)
		}
	case syntax.OpConcat, syntax.OpAlternate:
		for _, sub := range re.Sub {
			dumpTo(b, sub)
		}
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		dumpTo(b, re.Sub[0])
	case syntax.OpRepeat:
		fmt.Fprintf(b, "%d,%d ", re.Min, re.Max)
		dumpTo(b, re.Sub[0])
	case syntax.OpCapture:
		if re.Name != "" {
			b.WriteString(re.Name + ":")
		}
		dumpTo(b, re.Sub[0])
	case syntax.OpCharClass:
		for i := 0; i < len(re.Rune); i += 2 {
			if i > 0 {
				b.WriteByte(' ')
			}
			if re.Rune[i] == re.Rune[i+1] {
				fmt.Fprintf(b, "%#x", re.Rune[i])
			} else {
				fmt.Fprintf(b, "%#x-%#x", re.Rune[i], re.Rune[i+1])
			}
		}
	}
	b.WriteByte('}')
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "regexdiff:", err)
		os.Exit(2)
	}
}

// --- the generator --------------------------------------------------------------------------

type gen struct {
	r *rand.Rand
}

func (g *gen) pick(s []string) string { return s[g.r.Intn(len(s))] }
func (g *gen) chance(n int) bool      { return g.r.Intn(n) == 0 }

// Single characters worth mixing: ASCII of every kind, case-folding specials (K and the Kelvin
// sign, s and the long s, ß, Greek sigmas), multibyte runes, NUL, invalid UTF-8.
var chars = []string{
	"a", "b", "c", "x", "y", "z", "A", "B", "Z", "k", "K", "s", "S", "0", "1", "9", "-", "_", ".",
	"/", " ", "\n", "\t", "é", "É", "Δ", "δ", "σ", "ς", "Σ", "\u212a", "\u017f", "ß", "ẞ", "☺",
	"\U0001F600", "\x00", "\xff", "\xc3", "\xe2\x82", "ǅ", "ǆ", "Ǆ", "i", "İ", "ı", "\u0345",
}

var unicodeNames = func() []string {
	names := []string{"Any", "Nope", "L&", "greek", "Letter", "Cn", "LC", "ASCII", "Assigned",
		"Old Italic", "latin", "", "^", "^Greek", "^L", "^Nope", "Lu ", "L}"}
	for n := range unicode.Categories {
		names = append(names, n)
	}
	for n := range unicode.Scripts {
		names = append(names, n)
	}
	sort.Strings(names) // map order must not change what a seed generates
	return names
}()

var atoms = []string{
	`.`, `^`, `$`, `\A`, `\z`, `\b`, `\B`, `\d`, `\D`, `\s`, `\S`, `\w`, `\W`, `\pL`, `\PL`,
	`\pN`, `\pC`, `\pZ`, `\pX`, `\p`, `\P`, `\p{`, `\p{Greek`, `\Qa.b\E`, `\Q*`, `\Qx\Ey`, `\Q\E`,
	`\x41`, `\x{263a}`, `\x{10FFFF}`, `\x{110000}`, `\x{}`, `\x{zz}`, `\x4`, `\xZZ`, `\x`, `\0`,
	`\07`, `\123`, `\1`, `\8`, `\q`, `\C`, `\n`, `\t`, `\a`, `\f`, `\v`, `\r`, `\_`, `\.`, `\-`,
	`\]`, `\[`, `\\`, `\*`, `\é`, `\`, `\x{41}`, `\z`, `\Z`, `\G`, `\e`, `\k`, `\x{D800}`,
}

var classItems = []string{
	"a", "b", "z", "A", "Z", "0", "9", "-", "a-z", "A-Z", "0-9", "z-a", "a-\\x{10FFFF}", "é-ü",
	"k", "K", "s", "\\d", "\\D", "\\s", "\\S", "\\w", "\\W", "[:alpha:]", "[:^alpha:]",
	"[:digit:]", "[:word:]", "[:foo:]", "[:^space:]", "[:xdigit:]", "[:punct:]", "[:ascii:]",
	"\\pL", "\\p{Greek}", "\\P{Lu}", "\\p{Nope}", "\\]", "\\[", "\\-", "\\^", "^", "[", "]", ".",
	"\\x41-\\x5a", "\\n", "\\b", "\\q", "\\x{263a}", "☺", "\xff", "\\Q", "Δ-δ", "ſ", "\u212a",
	"[:", ":]",
}

var groups = []string{"(", "(?:", "(?i)", "(?i:", "(?-i:", "(?s:", "(?m)", "(?U)", "(?i-s:",
	"(?P<name>", "(?<name>", "(?P<n1>", "(?P<>", "(?P<n!>", "(?P=name)", "(?z)", "(?i-)",
	"(?-)", "(?)", "(?", "(?P<a", "(?<", "(?P", "(?im-s:", "(?--i)", "(?x)", "(?<é>", "(?P<_>",
}

var repeats = []string{"*", "+", "?", "*?", "+?", "??", "{2}", "{0}", "{1}", "{0,}", "{1,}",
	"{2,5}", "{3,}", "{,3}", "{1001}", "{2,1}", "{00}", "{1000}", "{1,1000}", "{0,1000}",
	"{99999999999}", "{2,5}?", "{", "{a}", "{1,2", "{5,3}", "**", "*+", "{10}", "{100}",
	"{500,}", "{1000,}", "{0,0}",
}

func (g *gen) unicodeClass() string {
	name := g.pick(unicodeNames)
	neg := g.chance(4)
	p := `\p`
	if neg {
		p = `\P`
	}
	if len(name) == 1 && !g.chance(3) {
		return p + name
	}
	return p + "{" + name + "}"
}

func (g *gen) class() string {
	var b strings.Builder
	b.WriteByte('[')
	if g.chance(3) {
		b.WriteByte('^')
	}
	if g.chance(8) {
		b.WriteByte(']')
	}
	for k := g.r.Intn(4); k >= 0; k-- {
		if g.chance(6) {
			b.WriteString(g.unicodeClass())
		} else {
			b.WriteString(g.pick(classItems))
		}
	}
	if !g.chance(15) {
		b.WriteByte(']')
	}
	return b.String()
}

func (g *gen) atom(depth int) string {
	switch g.r.Intn(12) {
	case 0, 1, 2:
		return g.pick(chars)
	case 3:
		return g.pick(atoms)
	case 4:
		return g.class()
	case 5:
		return g.unicodeClass()
	case 6, 7:
		if depth > 4 {
			return g.pick(chars)
		}
		open := "("
		if !g.chance(3) {
			open = g.pick(groups)
		}
		close := ")"
		if g.chance(20) {
			close = ""
		}
		return open + g.expr(depth+1) + close
	case 8:
		// literal words: alternations with common prefixes exercise the factoring
		return g.pick([]string{"abc", "abd", "aef", "bcx", "bcy", "ab", "a", "nginx", "main",
			"sidecar", "app-web", "app-db", "(?i:a)x", "ay", "A", "(?i)abc", "ABC"})
	case 9:
		return g.pick([]string{"|", ")", "(", "[", "]", "{", "}", "\\"})
	default:
		return strings.Repeat(g.pick(chars), 1+g.r.Intn(3))
	}
}

func (g *gen) piece(depth int) string {
	a := g.atom(depth)
	if g.chance(3) {
		a += g.pick(repeats)
	}
	return a
}

func (g *gen) expr(depth int) string {
	var b strings.Builder
	for k := g.r.Intn(5); k >= 0; k-- {
		b.WriteString(g.piece(depth))
		if g.chance(5) {
			b.WriteByte('|')
		}
	}
	return b.String()
}

// A pattern near one of Go's limits: repeat products, nesting depth, program size, rune count.
func (g *gen) limit() string {
	n := func(lo, hi int) int { return lo + g.r.Intn(hi-lo+1) }
	switch g.r.Intn(10) {
	case 0:
		return fmt.Sprintf("(%s{%d}){%d}", g.pick([]string{"a", "[a-z]", ".", "ab", "\\pL"}), n(1, 1000), n(1, 1000))
	case 1:
		d := n(990, 1010)
		return strings.Repeat("(", d) + "a" + strings.Repeat(")", d)
	case 2:
		d := n(990, 1010)
		return strings.Repeat("(?:", d) + "a" + strings.Repeat(")", d)
	case 3:
		k := n(3300, 3400)
		return fmt.Sprintf("(?:%s){1000}", strings.Repeat("a", k))
	case 4:
		return strings.Repeat("a{1000}", n(3300, 3400))
	case 5:
		return fmt.Sprintf("(?:%s){%d}", strings.Repeat(".", n(1, 40)), n(500, 1000)) + strings.Repeat("x{1000}", n(1, 4000))
	case 6:
		var b strings.Builder
		k := n(1, 600)
		for i := 0; i < k; i++ {
			if i > 0 {
				b.WriteByte('|')
			}
			b.WriteString(strings.Repeat("a", i+1))
		}
		return b.String()
	case 7:
		return strings.Repeat(g.pick([]string{`(?i)\pL`, `\pL`, `[\pL0]`, `\p{Greek}`}), n(1, 300))
	case 8:
		return strings.Repeat("(a|b)", n(900, 1100)) + "{2}"
	default:
		return fmt.Sprintf("((%s){%d}){%d}", g.pick([]string{"a", "b*", "[ab]"}), n(1, 40), n(1, 40))
	}
}

// A pattern, and whether it is one of the big ones near Go's limits.
func (g *gen) pattern() (string, bool) {
	if g.chance(400) {
		return g.limit(), true
	}
	if g.chance(5) {
		return g.soup(), false
	}
	p := g.expr(0)
	if g.chance(10) {
		// one random byte changed, inserted or removed
		b := []byte(p)
		if len(b) > 0 {
			i := g.r.Intn(len(b))
			switch g.r.Intn(3) {
			case 0:
				b[i] = byte(g.r.Intn(256))
			case 1:
				b = append(b[:i], append([]byte{byte(g.r.Intn(128))}, b[i:]...)...)
			default:
				b = append(b[:i], b[i+1:]...)
			}
		}
		p = string(b)
	}
	return p, false
}

// A short run of syntax characters and a few letters: odd corners of the grammar.
func (g *gen) soup() string {
	const alphabet = `()[]{}|*+?.^$\\-:,=<>!0129aAbkKPpQEdwszx_`
	var b strings.Builder
	for k := 1 + g.r.Intn(24); k > 0; k-- {
		b.WriteByte(alphabet[g.r.Intn(len(alphabet))])
	}
	return b.String()
}

// Texts for a pattern: made of the pattern's own characters and the interesting ones.
func (g *gen) texts(pattern string) []string {
	pool := []string{}
	for _, c := range pattern {
		pool = append(pool, string(c))
	}
	pool = append(pool, chars...)
	k := 1 + g.r.Intn(6)
	out := make([]string, 0, k)
	for i := 0; i < k; i++ {
		var b strings.Builder
		for j := g.r.Intn(12); j > 0; j-- {
			b.WriteString(g.pick(pool))
		}
		out = append(out, b.String())
	}
	if g.chance(50) {
		out = append(out, strings.Repeat("a", 2000+g.r.Intn(2000)))
	}
	return out
}

// --- the unit tests' match cases ------------------------------------------------------------

// Pattern and text pairs of Go's regexp tests (find_test.go's findTests), as data.
var findPairs = [][2]string{
	{``, ``}, {`^abcdefg`, "abcdefg"}, {`a+`, "baaab"}, {"abcd..", "abcdef"}, {`a`, "a"},
	{`x`, "y"}, {`b`, "abc"}, {`.`, "a"}, {`.*`, "abcdef"}, {`^`, "abcde"}, {`$`, "abcde"},
	{`^abcd$`, "abcd"}, {`^bcd'`, "abcdef"}, {`^abcd$`, "abcde"}, {`a*`, "baaab"},
	{`[a-z]+`, "abcd"}, {`[^a-z]+`, "ab1234cd"}, {`[a\-\]z]+`, "az]-bcz"}, {`[^\n]+`, "abcd\n"},
	{`[日本語]+`, "日本語日本語"}, {`日本語+`, "日本語"}, {`日本語+`, "日本語語語語"}, {`()`, ""},
	{`(a)`, "a"}, {`(.)(.)`, "日a"}, {`(.*)`, ""}, {`(.*)`, "abcd"}, {`(..)(..)`, "abcd"},
	{`(([^xyz]*)(d))`, "abcd"}, {`((a|b|c)*(d))`, "abcd"}, {`(((a|b|c)*)(d))`, "abcd"},
	{`\a\f\n\r\t\v`, "\a\f\n\r\t\v"}, {`[\a\f\n\r\t\v]+`, "\a\f\n\r\t\v"},
	{`a*(|(b))c*`, "aacc"}, {`(.*).*`, "ab"}, {`[.]`, "."}, {`/$`, "/abc/"}, {`/$`, "/abc"},
	{`.`, "abc"}, {`(.)`, "abc"}, {`.(.)`, "abcd"}, {`ab*`, "abbaab"}, {`a(b*)`, "abbaab"},
	{`ab$`, "cab"}, {`axxb$`, "axxcb"}, {`data`, "daXY data"}, {`da(.)a$`, "daXY data"},
	{`zx+`, "zzx"}, {`ab$`, "abcab"}, {`(aa)*$`, "a"}, {`(?:.|(?:.a))`, ""},
	{`(?:A(?:A|a))`, "Aa"}, {`(?:A|(?:A|a))`, "a"}, {`(a){0}`, ""}, {`(?-s)(?:(?:^).)`, "\n"},
	{`(?s)(?:(?:^).)`, "\n"}, {`(?:(?:^).)`, "\n"}, {`\b`, "x"}, {`\b`, "xx"}, {`\b`, "x y"},
	{`\b`, "xx yy"}, {`\B`, "x"}, {`\B`, "xx"}, {`\B`, "x y"}, {`\B`, "xx yy"}, {`(|a)*`, "aa"},
	{`[^\S\s]`, "abcd"}, {`[^\S[:space:]]`, "abcd"}, {`[^\D\d]`, "abcd"},
	{`[^\D[:digit:]]`, "abcd"}, {`(?i)\W`, "x"}, {`(?i)\W`, "k"}, {`(?i)\W`, "s"},
	{`\!\"\#\$\%\&\'\(\)\*\+\,\-\.\/\:\;\<\=\>\?\@\[\\\]\^\_\{\|\}\~`, `!"#$%&'()*+,-./:;<=>?@[\]^_{|}~`},
	{"\\`", "`"}, {"[\\`]+", "`"}, {"\ufffd", "\xff"}, {"\ufffd", "hello\xffworld"},
	{`.*`, "hello\xffworld"}, {`\x{fffd}`, "\xc2\x00"}, {"[\ufffd]", "\xff"},
	{`[\x{fffd}]`, "\xc2\x00"}, {".", "qwertyuiopasdfghjklzxcvbnm1234567890"},
	// what the webhooks match: container names and annotation keys
	{`^sidecar\.example\.com/.*$`, "sidecar.example.com/owner"},
	{`^sidecar\.example\.com/.*$`, "sidecarxexample.com/owner"}, {`owner`, "sidecar.example.com/owner"},
	{`^(app|main)$`, "main"}, {`^(app|main)$`, "main-2"}, {`nginx|main`, "my-nginx"},
	{`^main$`, "main"}, {`.*`, ""}, {`^nomatch$`, "main"}, {`(?i)^APP-`, "app-web"},
	{`\pL+-\d+`, "δοκιμή-12"}, {`(?i:a)x|ay`, "Ay"}, {`(?i:a)x|a(?i:y)`, "AY"}, {`(?i:A)x|A(?i:y)`, "aY"}, {`\p{Old_Italic}`, "\U00010300"},
	{`\pC`, "\u0378"}, {`[\p{Greek}\d]+$`, "abc123"}, {`(?m)^b$`, "a\nb\nc"}, {`^b$`, "a\nb\nc"},
	{`k`, "\u212a"}, {`(?i)k`, "\u212a"}, {`(?i)[k]`, "\u212a"}, {`(?i)ſ`, "S"}, {`\x{D800}`, "\xed\xa0\x80"},
}

// writeGolden writes pattern, text and Go's MatchString answer, one case a line, for the cases
// of findPairs and of RE2's search tests that Go ships (src/regexp/testdata/re2-search.txt).
func writeGolden(path string) error {
	var pairs [][2]string
	pairs = append(pairs, findPairs...)
	data, err := os.ReadFile(runtime.GOROOT() + "/src/regexp/testdata/re2-search.txt")
	if err != nil {
		return err
	}
	var strs []string
	inStrings := false
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case line == "strings":
			strs, inStrings = nil, true
		case line == "regexps":
			inStrings = false
		case strings.HasPrefix(line, `"`):
			v, err := strconv.Unquote(line)
			if err != nil {
				return fmt.Errorf("%s: %v", line, err)
			}
			if inStrings {
				strs = append(strs, v)
			} else {
				for _, t := range strs {
					pairs = append(pairs, [2]string{v, t})
				}
			}
		}
	}
	var b strings.Builder
	b.WriteString("# MatchString of Go 1.23 (written by: cd test/regexdiff && GOTOOLCHAIN=go1.23.9 go run . -golden\n")
	b.WriteString("# ../unit/data/regex/match.txt), one case a line: pattern <TAB> text <TAB> 1 or 0. The cases are\n")
	b.WriteString("# those of Go's find_test.go, of RE2's search tests (src/regexp/testdata/re2-search.txt) and a\n")
	b.WriteString("# few of the webhooks' own. Escapes: \\\\ \\t \\n \\xHH (bytes).\n")
	seen := map[[2]string]bool{}
	n := 0
	for _, p := range pairs {
		if seen[p] {
			continue
		}
		seen[p] = true
		re, err := regexp.Compile(p[0])
		if err != nil {
			continue // RE2's \C, which Go refuses
		}
		m := "0"
		if re.MatchString(p[1]) {
			m = "1"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\n", escape(p[0]), escape(p[1]), m)
		n++
	}
	fmt.Fprintf(os.Stderr, "regexdiff: %d cases written to %s\n", n, path)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// escape writes bytes as the unit tests read them: \\ \t \n and \xHH for other control bytes and
// for bytes that are not UTF-8; other UTF-8 as it is.
func escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, w := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && w == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, "\\x%02x", r)
		default:
			b.WriteString(s[i : i+w])
		}
		i += w
	}
	return b.String()
}
