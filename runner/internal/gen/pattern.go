package gen

import (
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// patternWriter builds one string matched by a regular expression by
// walking its syntax tree: literals are copied, a character class
// contributes a letter of a realistic word (or a digit of a realistic
// number) when it allows one, alternations take one branch, and unbounded
// repetitions repeat `reps` times. The result is only a proposal; the
// caller checks it with the real regexp, because anchors and word
// boundaries in the middle of a pattern are not modelled.
type patternWriter struct {
	word   []rune
	wi     int
	digits []rune
	di     int
	reps   int
	pick   int
	out    []rune
}

// fromPattern proposes a string for pattern. reps is the preferred number of
// repetitions for *, + and {n,}; pick rotates alternations; word is the
// realistic text that letters are drawn from (so ^[a-z]+$ for a `city`
// gives "chicago", and ^\d{3}-\d{4}$ gives "555-0142"). Patterns are RE2,
// as the validator reads them; one that is not, such as a lookaround,
// fails the metaschema, so package schema refused its schema before it
// got here.
func fromPattern(pattern string, reps, pick int, word string) (string, bool) {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return "", false
	}
	if word == "" {
		word = "example"
	}
	w := &patternWriter{word: []rune(word), digits: []rune("5550142"), reps: reps, pick: pick}
	if !w.walk(re, 0) {
		return "", false
	}
	return string(w.out), true
}

func (w *patternWriter) walk(re *syntax.Regexp, depth int) bool {
	if depth > 200 || len(w.out) > maxStringGen {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		w.out = append(w.out, re.Rune...)
		return true
	case syntax.OpCharClass:
		r, ok := w.classRune(re.Rune)
		if ok {
			w.out = append(w.out, r)
		}
		return ok
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		w.out = append(w.out, w.nextLetter())
		return true
	case syntax.OpCapture:
		return w.walk(re.Sub[0], depth+1)
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !w.walk(s, depth+1) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		n := len(re.Sub)
		for i := range n {
			mark := len(w.out)
			if w.walk(re.Sub[(w.pick+i)%n], depth+1) {
				return true
			}
			w.out = w.out[:mark]
		}
		return false
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		lo, hi := 0, -1
		switch re.Op {
		case syntax.OpPlus:
			lo = 1
		case syntax.OpQuest:
			hi = 1
		case syntax.OpRepeat:
			lo, hi = re.Min, re.Max
		}
		n := max(w.reps, lo)
		if hi >= 0 {
			n = min(n, hi)
		}
		for i := 0; i < n; i++ {
			mark := len(w.out)
			if !w.walk(re.Sub[0], depth+1) {
				w.out = w.out[:mark]
				return i >= lo
			}
		}
		return true
	}
	return false
}

func (w *patternWriter) nextLetter() rune {
	r := w.word[w.wi%len(w.word)]
	w.wi++
	return r
}

func inClass(ranges []rune, r rune) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		if r >= ranges[i] && r <= ranges[i+1] {
			return true
		}
	}
	return false
}

// classRune picks a character the class allows, preferring the realistic
// word, then digits, then plain ASCII, then anything printable.
func (w *patternWriter) classRune(ranges []rune) (rune, bool) {
	if len(ranges) == 0 {
		return 0, false
	}
	if len(w.word) > 0 {
		r := w.word[w.wi%len(w.word)]
		for _, c := range []rune{r, unicode.ToUpper(r), unicode.ToLower(r)} {
			if inClass(ranges, c) {
				w.wi++
				return c, true
			}
		}
	}
	d := w.digits[w.di%len(w.digits)]
	if inClass(ranges, d) {
		w.di++
		return d, true
	}
	for _, span := range [][2]rune{{'a', 'z'}, {'0', '9'}, {'A', 'Z'}} {
		for c := span[0]; c <= span[1]; c++ {
			if inClass(ranges, c) {
				return c, true
			}
		}
	}
	for _, c := range " -_.@:/+" {
		if inClass(ranges, c) {
			return c, true
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		lo, hi := ranges[i], ranges[i+1]
		for c := max(lo, 0x21); c <= hi && c < lo+64 && c <= utf8.MaxRune; c++ {
			if utf8.ValidRune(c) && unicode.IsPrint(c) {
				return c, true
			}
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if utf8.ValidRune(ranges[i]) {
			return ranges[i], true
		}
	}
	return 0, false
}
