// Package jsonx decodes JSON keeping numbers exact (json.Number, never a
// float64 that would round integers beyond 2^53) and compares number
// literals by value. config, assert and the runner all judge numbers a
// server or a fixture wrote; they share this one reading of them.
package jsonx

import (
	"bytes"
	"encoding/json"
)

// Decode decodes the first JSON value of data into v, numbers as
// json.Number. What follows the value is not looked at.
func Decode(data []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	return d.Decode(v)
}

// Value is the first JSON value of data as generic JSON (map[string]any,
// []any, string, bool, json.Number, nil), or nil when data does not start
// with one.
func Value(data []byte) any {
	var v any
	if Decode(data, &v) != nil {
		return nil
	}
	return v
}

// Messages splits a JSON-RPC body into its messages: one object, or the
// members of a batch (nil when the batch is not JSON).
func Messages(body []byte) [][]byte {
	msg := bytes.TrimSpace(body)
	if len(msg) == 0 {
		return nil
	}
	if msg[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(msg, &batch) != nil {
			return nil
		}
		out := make([][]byte, len(batch))
		for i, m := range batch {
			out[i] = m
		}
		return out
	}
	return [][]byte{msg}
}
