package gen

import "strings"

// idempotencyKeyNames are the property names, lower-cased with "_" and "-"
// removed, that say a caller-chosen key makes a repeated call safe: the
// names the large APIs use for it (Stripe's Idempotency-Key, AWS's
// ClientToken and ClientRequestToken, Google's requestId, …).
var idempotencyKeyNames = []string{
	"idempotencykey", "idempotencytoken", "idempotencyid",
	"clienttoken", "clientrequesttoken", "clientrequestid", "requestid",
	"dedupkey", "dedupekey", "deduplicationkey", "deduplicationid",
}

// IdempotencyKey is the name of the top-level property of an inputSchema
// (decoded generic JSON) that is an idempotency key, or "" when there is
// none. The rule: a string (or untyped) property whose name, lower-cased
// with "_" and "-" removed, is one of idempotencyKey, idempotencyToken,
// idempotencyId, clientToken, clientRequestToken, clientRequestId,
// requestId, dedupKey, dedupeKey, deduplicationKey, deduplicationId, or
// ends in "idempotencykey". The first such name in sorted order wins.
func IdempotencyKey(doc any) string {
	m, _ := doc.(map[string]any)
	props, _ := m["properties"].(map[string]any)
	best := ""
	for name, p := range props {
		ps, _ := p.(map[string]any)
		if t, ok := ps["type"]; ok && t != "string" {
			continue
		}
		n := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(name))
		known := strings.HasSuffix(n, "idempotencykey")
		for _, k := range idempotencyKeyNames {
			known = known || n == k
		}
		if known && (best == "" || name < best) {
			best = name
		}
	}
	return best
}
