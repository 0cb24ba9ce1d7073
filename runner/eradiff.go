package runner

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
)

// Divergence in value. A run in several protocol eras compares each
// hand-written step's answers between the eras, not only its status and
// outcome (generated steps, which create records with server-minted ids,
// are compared by status, outcome and error code only): each
// top-level member of a result (structuredContent, content, contents,
// messages, tools, ...) is kept in the report as a keyed digest, and the
// members whose digests differ are the step's value divergence. The
// digests are HMACs under a key drawn for the run, so they say whether two
// answers of the run are equal and nothing about the answer itself (the
// report holds no result values). What the 2026-07-28 revision added to
// every result is left out, so that it is no divergence: resultType, the
// caching hints ttlMs and cacheScope, and the _meta keys of the protocol
// itself (io.modelcontextprotocol/..., such as serverInfo); isError false
// counts as absent.

// newAnswerKey is the key of one run's answer digests.
func newAnswerKey() []byte {
	k := make([]byte, 32)
	rand.Read(k)
	return k
}

// eraFields are the result members the revision added.
var eraFields = map[string]bool{"resultType": true, "ttlMs": true, "cacheScope": true}

// answerDigests digests raw's top-level members under key, or nil when raw
// is not a JSON object.
func answerDigests(key []byte, raw json.RawMessage) map[string]string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil || top == nil {
		return nil
	}
	out := make(map[string]string, len(top))
	for name, v := range top {
		if eraFields[name] || (name == "isError" && string(bytes.TrimSpace(v)) == "false") {
			continue
		}
		var val any
		d := json.NewDecoder(bytes.NewReader(v))
		d.UseNumber()
		if d.Decode(&val) != nil {
			continue
		}
		if name == "_meta" {
			if m, ok := val.(map[string]any); ok {
				for k := range m {
					if strings.HasPrefix(k, "io.modelcontextprotocol/") {
						delete(m, k)
					}
				}
				if len(m) == 0 {
					continue
				}
			}
		}
		canon, err := json.Marshal(val) // object keys sorted: key order is no difference
		if err != nil {
			continue
		}
		mac := hmac.New(sha256.New, key)
		mac.Write(canon)
		out[name] = base64.RawURLEncoding.EncodeToString(mac.Sum(nil)[:12])
	}
	return out
}

// valuesDiffer names the members whose values differ between two results
// of a step, sorted; nil when either has no digests (no answer, or a run
// in one era).
func valuesDiffer(a, b map[string]string) []string {
	if a == nil || b == nil {
		return nil
	}
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// withoutEraFields is a decoded result without what the 2026-07-28
// revision added to every result (a copy when it had any), so that a
// golden answer holds in both eras.
func withoutEraFields(m map[string]any) map[string]any {
	var out map[string]any
	for k, v := range m {
		drop := eraFields[k]
		var meta map[string]any
		if k == "_meta" {
			if mm, ok := v.(map[string]any); ok {
				for mk := range mm {
					if strings.HasPrefix(mk, "io.modelcontextprotocol/") {
						if meta == nil {
							meta = make(map[string]any, len(mm))
							for kk, vv := range mm {
								meta[kk] = vv
							}
						}
						delete(meta, mk)
					}
				}
			}
		}
		if !drop && meta == nil {
			continue
		}
		if out == nil {
			out = make(map[string]any, len(m))
			for kk, vv := range m {
				out[kk] = vv
			}
		}
		switch {
		case drop, len(meta) == 0:
			delete(out, k)
		default:
			out[k] = meta
		}
	}
	if out == nil {
		return m
	}
	return out
}
