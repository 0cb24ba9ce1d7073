package gen

import "testing"

func TestIdempotencyKey(t *testing.T) {
	prop := func(names ...string) map[string]any {
		props := map[string]any{}
		for _, n := range names {
			props[n] = map[string]any{"type": "string"}
		}
		return map[string]any{"type": "object", "properties": props}
	}
	tests := []struct {
		doc  any
		want string
	}{
		{prop("idempotencyKey", "text"), "idempotencyKey"},
		{prop("idempotency_key"), "idempotency_key"},
		{prop("client-token"), "client-token"},
		{prop("requestId"), "requestId"},
		{prop("orderIdempotencyKey"), "orderIdempotencyKey"},
		{prop("request", "key", "id"), ""},
		{map[string]any{"properties": map[string]any{"requestId": map[string]any{"type": "integer"}}}, ""},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := IdempotencyKey(tt.doc); got != tt.want {
			t.Errorf("IdempotencyKey(%v) = %q, want %q", tt.doc, got, tt.want)
		}
	}
}
