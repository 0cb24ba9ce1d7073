package assert

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// refusalPhrases are the full phrases [Refusal] looks for. Each is matched
// case-insensitively and as whole words after the text is normalised:
// curly apostrophes straightened, "I'm", "can't", "can not", "don't",
// "won't" expanded, punctuation turned into spaces. So "I'm sorry, but I
// can't" also matches "i am sorry but I cannot". Single words ("sorry",
// "cannot", "unable") never count: a genuine answer may apologise or say
// that something cannot be done. Bare "as an AI" is not listed either, so
// "As an AI-powered search engine, we found ..." is not a refusal; "As an
// AI, I ..." is.
var refusalPhrases = []string{
	"I'm sorry, but I can't",
	"I apologize, but I can't",
	"I apologise, but I can't",
	"I'm afraid I can't",
	"sorry, I can't",
	"I can't help with",
	"I can't assist with",
	"I can't fulfill",
	"I can't comply",
	"I can't browse",
	"I can't access",
	"I am unable to",
	"I'm not able to",
	"I'm not allowed to",
	"I'm not permitted to",
	"I don't have access to",
	"I don't have the ability to",
	"I don't have real-time",
	"I won't be able to",
	"I must decline",
	"as an AI, I",
	"as an AI language model",
	"as an AI assistant",
	"as an AI model",
	"as an AI developed by",
	"as a language model",
	"I'm just an AI",
	"my knowledge cutoff",
}

var refusalNormal = func() []string {
	out := make([]string, len(refusalPhrases))
	for i, p := range refusalPhrases {
		out[i] = " " + normalizeProse(p) + " "
	}
	return out
}()

var contractions = strings.NewReplacer(
	"i'm ", "i am ",
	"can't", "cannot",
	"can not", "cannot",
	"don't", "do not",
	"won't", "will not",
)

// normalizeProse lower-cases text, expands the contractions the phrase list
// relies on and reduces everything but letters, digits and spaces to single
// spaces.
func normalizeProse(text string) string {
	s := strings.ToLower(text)
	s = strings.NewReplacer("\u2019", "'", "\u2018", "'", "\u02bc", "'", "`", "'").Replace(s)
	var b strings.Builder
	b.Grow(len(s))
	space := true
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' {
			b.WriteRune(r)
			space = false
			continue
		}
		if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	s = contractions.Replace(strings.TrimSpace(b.String()) + " ")
	return strings.TrimSpace(strings.ReplaceAll(s, "'", " "))
}

// Refusal reports whether a successful tool result's text reads as a
// refusal in disguise, and which phrase of the documented list matched
// (the first in list order). It is conservative: full phrases only, so an
// answer that apologises for a delay or says a file "cannot be found" is
// not a refusal.
func Refusal(text string) (phrase string, ok bool) {
	if text == "" {
		return "", false
	}
	t := " " + normalizeProse(text) + " "
	for i, p := range refusalNormal {
		if strings.Contains(t, p) {
			return refusalPhrases[i], true
		}
	}
	return "", false
}

// EchoMismatch is mcp-reality-check's relevance signal. It collects every
// string of at least three characters (after trimming) found anywhere in
// the arguments' values, recursively, and reports mismatch when none of
// them occurs in text, ignoring case. checked is false when there was no
// such string, and then mismatch is false too. It is a weak, unscored
// signal: a correct answer need not repeat its input.
func EchoMismatch(args map[string]any, text string) (checked bool, mismatch bool) {
	var inputs []string
	collectStrings(args, 0, &inputs)
	if len(inputs) == 0 {
		return false, false
	}
	lower := strings.ToLower(text)
	for _, s := range inputs {
		if strings.Contains(lower, strings.ToLower(s)) {
			return true, false
		}
	}
	return true, true
}

// maxEchoDepth bounds how deep EchoMismatch looks into the arguments.
const maxEchoDepth = 128

func collectStrings(v any, depth int, out *[]string) {
	if depth > maxEchoDepth || len(*out) >= 1000 {
		return
	}
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		if utf8.RuneCountInString(s) >= 3 {
			*out = append(*out, s)
		}
	case map[string]any:
		for _, k := range sortedKeys(x) {
			collectStrings(x[k], depth+1, out)
		}
	case []any:
		for _, e := range x {
			collectStrings(e, depth+1, out)
		}
	}
}
