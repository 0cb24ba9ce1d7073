package assert

import (
	"encoding/json"
	"testing"
)

func TestRefusal(t *testing.T) {
	refusals := []struct{ text, phrase string }{
		{"I'm sorry, but I can't help with that request.", "I'm sorry, but I can't"},
		{"I’m sorry, but I cannot provide that information.", "I'm sorry, but I can't"},
		{"I am sorry but I can not do this", "I'm sorry, but I can't"},
		{"I cannot help with requests about weapons.", "I can't help with"},
		{"As an AI, I don't have personal opinions.", "as an AI, I"},
		{"As an AI language model I cannot browse the internet.", "I can't browse"}, // first in list order
		{"As an AI language model, my answers may vary.", "as an AI language model"},
		{"I don't have access to your calendar.", "I don't have access to"},
		{"I do not have access to real-time data", "I don't have access to"},
		{"Unfortunately I am unable to retrieve the weather right now.", "I am unable to"},
		{"I'm unable to complete this.", "I am unable to"},
		{"I'm not able to open that file.", "I'm not able to"},
		{"I apologize, but I can't share that.", "I apologize, but I can't"},
		{"I'm afraid I can't do that, Dave.", "I'm afraid I can't"},
		{"I must decline this request.", "I must decline"},
		{"My knowledge cutoff is April 2024, so I can't say.", "my knowledge cutoff"},
		{"I DON'T HAVE THE ABILITY TO SEND EMAIL", "I don't have the ability to"},
		{"Sorry, I can't find anything about that.", "sorry, I can't"},
	}
	for _, tt := range refusals {
		phrase, ok := Refusal(tt.text)
		if !ok || phrase != tt.phrase {
			t.Errorf("Refusal(%q) = %q, %v; want %q", tt.text, phrase, ok, tt.phrase)
		}
	}
	answers := []string{
		"",
		"Sorry for the delay: here are your 3 results.",
		"We apologize for the inconvenience; the report is attached.",
		"The file cannot be found at notes/todo.txt.",
		"Error: cannot connect to the database (retrying).",
		"Chicago: 21°C, sunny. Tasks that cannot be completed today were moved to Monday.",
		"The API is unable to process more than 10 items per request; showing the first 10.",
		"As an aid to navigation, the lighthouse was built in 1858.",
		"As an AI-powered search engine, we found 12 matching documents.",
		"Access denied for user janedoe: token expired.",
		"You don't have access to this folder; ask an owner to share it.",
		"The model says it can't be sure, with 62% confidence.",
		"I can confirm the booking for 2026-01-15 at 09:30.",
		"sorry",
		"cannot",
		`{"error": "I'm"}`,
	}
	for _, text := range answers {
		if phrase, ok := Refusal(text); ok {
			t.Errorf("Refusal(%q) = %q, want no refusal", text, phrase)
		}
	}
}

func TestRefusalPhrasesMatchThemselves(t *testing.T) {
	for _, p := range refusalPhrases {
		got, ok := Refusal(p)
		if !ok {
			t.Errorf("phrase %q does not match itself", p)
		} else if _, again := Refusal(got); !again {
			t.Errorf("phrase %q reported as %q", p, got)
		}
	}
}

func TestEchoMismatch(t *testing.T) {
	tests := []struct {
		args              string
		text              string
		checked, mismatch bool
	}{
		{`{"city":"Chicago"}`, "Weather in chicago: sunny", true, false},
		{`{"city":"Chicago"}`, "Weather in Toronto: sunny", true, true},
		{`{"q":"ab","n":5}`, "anything", false, false},
		{`{}`, "anything", false, false},
		{`{"filter":{"names":["Jane Doe","  x  "]}}`, "Found JANE DOE", true, false},
		{`{"filter":{"names":["Jane Doe"]},"unit":"celsius"}`, "21 degrees Celsius", true, false},
		{`{"a":"  abc  "}`, "xxabcxx", true, false},
		{`{"a":"über"}`, "ÜBER alles", true, false},
		{`{"a":"abc"}`, "", true, true},
	}
	for _, tt := range tests {
		var args map[string]any
		if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
			t.Fatal(err)
		}
		checked, mismatch := EchoMismatch(args, tt.text)
		if checked != tt.checked || mismatch != tt.mismatch {
			t.Errorf("EchoMismatch(%s, %q) = %v, %v; want %v, %v", tt.args, tt.text, checked, mismatch, tt.checked, tt.mismatch)
		}
	}
	if c, m := EchoMismatch(nil, "x"); c || m {
		t.Error("nil args checked")
	}
}
