package gen

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// fillers are the words an unhinted string is drawn from (by seed).
var fillers = []string{"example", "sample", "demo", "alpha", "bravo", "harbor", "meadow", "orbit"}

// strings proposes string candidates: the format's values (if the format
// is known) or else the name or description hint's, strings written from
// each pattern at several repetition counts, a filler word drawn by seed,
// and each of those stretched or cut to fit minLength and maxLength
// (counted in code points; a minLength above 65,536 is not generated).
func (g *gen) strings(path, name string, objs []fobj, vk int) ([]string, string) {
	minL, maxL := 0, -1
	var patterns, formats []string
	for _, o := range objs {
		if n, ok := count(o.m, "minLength"); ok {
			minL = max(minL, n)
		}
		if n, ok := count(o.m, "maxLength"); ok {
			if maxL < 0 || n < maxL {
				maxL = n
			}
		}
		if p, ok := o.m["pattern"].(string); ok && !slices.Contains(patterns, p) {
			patterns = append(patterns, p)
		}
		if f, ok := o.m["format"].(string); ok && !slices.Contains(formats, f) {
			formats = append(formats, f)
		}
	}
	if maxL >= 0 && minL > maxL {
		return nil, fmt.Sprintf("minLength %d is above maxLength %d, so no string fits", minL, maxL)
	}
	if minL > 1<<16 {
		return nil, fmt.Sprintf("minLength %d is too large to generate", minL)
	}
	var base []string
	add := func(list []string) {
		for i := range list {
			base = append(base, list[(i+vk)%len(list)])
		}
	}
	knownFormat := false
	for _, f := range formats {
		if vals, ok := formatValues[f]; ok {
			add(vals)
			knownFormat = true
			break
		}
	}
	h := lookupHint(name)
	if h == nil || len(h.strs) == 0 {
		h = descriptionHint(objs)
	}
	if h != nil && len(h.strs) > 0 && !knownFormat {
		if vk >= len(h.strs) {
			// Past the end of the list: numbered values keep variants apart.
			base = append(base, fmt.Sprintf("%s %d", h.strs[vk%len(h.strs)], vk/len(h.strs)+1))
		}
		add(h.strs)
	}
	filler := fillers[g.rnd(path, vk, "filler")%uint64(len(fillers))]
	word := filler
	if len(base) > 0 {
		word = letters(base[0], filler)
	}
	for _, p := range patterns {
		reps := []int{7, 1, 0, 3, 12, 30}
		if minL > 0 {
			reps = append(reps, minL)
		}
		for _, r := range reps {
			if s, ok := fromPattern(p, r, vk, word); ok {
				base = append(base, s)
			}
		}
	}
	if !knownFormat || len(base) == 0 {
		base = append(base, filler)
	}
	var out []string
	for _, s := range base {
		n := utf8.RuneCountInString(s)
		if n >= minL && (maxL < 0 || n <= maxL) {
			out = append(out, s)
		}
	}
	for i, s := range base {
		if minL > 256 && i >= 3 {
			break // long strings are costly; three stretched candidates suffice
		}
		if fit, ok := fitLength(s, minL, maxL); ok {
			out = append(out, fit)
		}
	}
	if len(patterns) > 0 || knownFormat {
		return out, "no generated string satisfies the pattern, format and length keywords together"
	}
	return out, ""
}

// letters keeps the lower-case ASCII letters of s, for pattern writing.
func letters(s, fallback string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	if b.Len() < 3 {
		return fallback
	}
	return b.String()
}

// fitLength pads s (by repeating it) or cuts it to fit [minL, maxL].
func fitLength(s string, minL, maxL int) (string, bool) {
	r := []rune(s)
	if len(r) == 0 {
		r = []rune("x")
	}
	if len(r) < minL {
		out := make([]rune, 0, minL)
		for len(out) < minL {
			if len(out) > 0 {
				out = append(out, ' ')
			}
			out = append(out, r...)
		}
		r = out[:minL]
	}
	if maxL >= 0 && len(r) > maxL {
		r = r[:maxL]
	}
	return string(r), len(r) >= minL
}
