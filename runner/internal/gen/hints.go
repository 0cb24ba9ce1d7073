package gen

import (
	"strings"
	"unicode"
)

// hint is a realistic value for a property whose schema says little more
// than "string" (or "number"). The first value of each list is the
// canonical one [Values.Valid] uses, the same for every seed;
// [Values.Distinct] rotates through the rest, and past the end of a string
// list numbers them ("Jane Doe 2").
type hint struct {
	keys []string // normalised names: lower case, separators removed
	strs []string // values when a string is wanted
	nums []string // values when a number is wanted
	ints []string // values when an integer is wanted
	bool *bool    // value when a boolean is wanted
}

var yes = true

// hints is the property-name hint table: a loosely typed string, number or
// boolean gets a realistic value chosen by its property name. A name is
// split into words at separators and camelCase ("sourceTimezone" → source,
// timezone), and the keys are matched against the whole name, then its
// last two words, then its last word, then that word in singular form,
// then its first word (see [lookupHint]). Array items use the singular of
// the array's name ([singularName]: "entityNames" → "Jane Doe"); a string
// property whose name matches nothing falls back on its description
// ([descriptionHint]); a known format takes precedence over the hint
// ([formatValues]). A boolean without a hint starts false.
var hints = []hint{
	{keys: []string{"city", "town", "cityname", "location", "place"},
		strs: []string{"Chicago", "Toronto", "Berlin", "Tokyo", "Lisbon"}},
	{keys: []string{"email", "emailaddress", "mail", "recipient", "cc", "bcc"},
		strs: []string{"jane.doe@example.com", "john.smith@example.org", "alex.kim@example.net"}},
	{keys: []string{"url", "uri", "link", "website", "homepage", "href", "endpoint", "webpage", "site"},
		strs: []string{"https://example.com", "https://example.org/docs/getting-started", "https://www.example.net/news"}},
	{keys: []string{"timezone", "tz", "tzname", "timezonename", "ianatimezone"},
		strs: []string{"America/New_York", "Europe/London", "Asia/Tokyo"}},
	{keys: []string{"time", "starttime", "endtime", "clocktime"},
		strs: []string{"09:30", "14:45", "18:05"}},
	{keys: []string{"date", "startdate", "enddate", "duedate", "day"},
		strs: []string{"2026-01-15", "2026-03-02", "2026-07-20"},
		ints: []string{"15", "2", "20"}},
	{keys: []string{"birthdate", "dob", "dateofbirth", "birthday"},
		strs: []string{"1990-04-12", "1985-11-03"}},
	{keys: []string{"datetime", "timestamp", "createdat", "updatedat", "since", "until", "deadline"},
		strs: []string{"2026-01-15T09:30:00Z", "2026-03-02T14:45:00Z", "2026-07-20T18:05:00Z"},
		ints: []string{"1768469400", "1772462700"}},
	{keys: []string{"country", "countryname", "nation"},
		strs: []string{"Canada", "Japan", "Germany"}},
	{keys: []string{"countrycode", "countryiso"},
		strs: []string{"CA", "JP", "DE"}},
	{keys: []string{"query", "q", "search", "searchquery", "searchterm", "searchterms", "keyword", "keywords", "term", "terms", "question", "lookup"},
		strs: []string{"best coffee shops in Chicago", "weather forecast for Toronto this weekend", "history of the printing press"}},
	{keys: []string{"topic", "theme"},
		strs: []string{"renewable energy", "urban gardening", "the history of jazz"}},
	{keys: []string{"prompt", "instruction", "instructions"},
		strs: []string{"Write a haiku about autumn leaves.", "Summarize the benefits of regular exercise in two sentences."}},
	{keys: []string{"path", "file", "filepath", "filename", "fname", "document"},
		strs: []string{"notes/todo.txt", "docs/readme.md", "reports/2026-q1.csv"}},
	{keys: []string{"dir", "directory", "folder", "dirpath", "cwd", "workdir"},
		strs: []string{"notes", "docs", "reports"}},
	{keys: []string{"id", "identifier", "key"},
		strs: []string{"3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21", "9b2d7e41-5c3a-4f8e-b1d6-0a7c9e2f4b13", "c4e81f2a-6d9b-4a35-8e07-52b1f3d9a6c8"},
		nums: []string{"42", "7", "1001"}, ints: []string{"42", "7", "1001"}},
	{keys: []string{"uuid", "guid"},
		strs: []string{"3f6c2a9e-8b1d-4c7e-9a52-1d0e4b7f8c21", "9b2d7e41-5c3a-4f8e-b1d6-0a7c9e2f4b13"}},
	{keys: []string{"name", "fullname", "displayname", "author", "contact", "person", "assignee"},
		strs: []string{"Jane Doe", "John Smith", "Alex Kim"}},
	{keys: []string{"firstname", "givenname"},
		strs: []string{"Jane", "John", "Alex"}},
	{keys: []string{"lastname", "surname", "familyname"},
		strs: []string{"Doe", "Smith", "Kim"}},
	{keys: []string{"username", "user", "login", "handle", "screenname"},
		strs: []string{"janedoe", "jsmith", "alexkim"}},
	{keys: []string{"title", "heading", "headline"},
		strs: []string{"Quarterly planning notes", "Trip to Lisbon", "Weekly team sync"}},
	{keys: []string{"subject"},
		strs: []string{"Meeting follow-up", "Invoice for March", "Weekend plans"}},
	{keys: []string{"description", "summary", "details", "desc", "bio", "caption"},
		strs: []string{"A short note about the quarterly planning meeting.", "Notes from the trip planning call.", "A reminder to renew the library books."}},
	{keys: []string{"message", "text", "content", "body", "comment", "note", "notes", "msg", "observation", "contents", "reply", "statement"},
		strs: []string{"Please remember to water the plants on Friday.", "The quarterly report is ready for review.", "Lunch is moved to 12:30 tomorrow."}},
	{keys: []string{"language", "lang", "languagecode"},
		strs: []string{"en", "fr", "de"}},
	{keys: []string{"locale"},
		strs: []string{"en-US", "fr-FR", "de-DE"}},
	{keys: []string{"currency", "currencycode"},
		strs: []string{"USD", "EUR", "JPY"}},
	{keys: []string{"phone", "phonenumber", "mobile", "tel", "telephone", "cell"},
		strs: []string{"+1-312-555-0142", "+1-416-555-0199"}},
	{keys: []string{"lat", "latitude"},
		strs: []string{"41.8781", "43.6532", "52.52"}, nums: []string{"41.8781", "43.6532", "52.52"}, ints: []string{"41", "43", "52"}},
	{keys: []string{"lon", "lng", "long", "longitude"},
		strs: []string{"-87.6298", "-79.3832", "13.405"}, nums: []string{"-87.6298", "-79.3832", "13.405"}, ints: []string{"-87", "-79", "13"}},
	{keys: []string{"count", "n", "num", "quantity", "qty", "number", "steps", "retries", "repeat"},
		nums: []string{"3", "5", "2"}, ints: []string{"3", "5", "2"}, strs: []string{"3", "5", "2"}},
	{keys: []string{"limit", "maxresults", "max", "pagesize", "perpage", "size", "top", "topk", "k", "maxitems", "results", "numresults"},
		nums: []string{"10", "5", "20"}, ints: []string{"10", "5", "20"}, strs: []string{"10", "5", "20"}},
	{keys: []string{"page", "pagenumber", "pageno", "pagenum"},
		nums: []string{"1", "2", "3"}, ints: []string{"1", "2", "3"}, strs: []string{"1", "2", "3"}},
	{keys: []string{"offset", "skip", "cursorposition"},
		nums: []string{"0", "10", "20"}, ints: []string{"0", "10", "20"}, strs: []string{"0", "10", "20"}},
	{keys: []string{"tokens", "maxtokens", "maxlength"},
		nums: []string{"100", "256", "50"}, ints: []string{"100", "256", "50"}},
	{keys: []string{"age"}, nums: []string{"30", "42"}, ints: []string{"30", "42"}},
	{keys: []string{"year"}, nums: []string{"2026", "2025"}, ints: []string{"2026", "2025"}, strs: []string{"2026", "2025"}},
	{keys: []string{"month"}, nums: []string{"1", "6"}, ints: []string{"1", "6"}, strs: []string{"January", "June"}},
	{keys: []string{"hour", "hours"}, nums: []string{"9", "14"}, ints: []string{"9", "14"}},
	{keys: []string{"minute", "minutes"}, nums: []string{"30", "15"}, ints: []string{"30", "15"}},
	{keys: []string{"second", "seconds", "timeout", "delay", "interval"}, nums: []string{"5", "10"}, ints: []string{"5", "10"}},
	{keys: []string{"duration"}, nums: []string{"30", "10"}, ints: []string{"30", "10"}, strs: []string{"PT30M", "PT1H"}},
	{keys: []string{"port"}, nums: []string{"8080", "443"}, ints: []string{"8080", "443"}, strs: []string{"8080", "443"}},
	{keys: []string{"temperature"}, nums: []string{"0.7", "0.2"}, ints: []string{"21", "18"}},
	{keys: []string{"price", "amount", "cost", "total", "budget", "balance", "salary"},
		nums: []string{"19.99", "42.5", "100"}, ints: []string{"20", "100", "42"}, strs: []string{"19.99", "42.50"}},
	{keys: []string{"address", "street", "streetaddress", "addressline"},
		strs: []string{"123 Main St", "456 Oak Ave", "789 Pine Rd"}},
	{keys: []string{"zip", "zipcode", "postalcode", "postcode"},
		strs: []string{"60601", "10001", "94105"}},
	{keys: []string{"state", "province", "region"},
		strs: []string{"Illinois", "Ontario", "Bavaria"}},
	{keys: []string{"color", "colour"},
		strs: []string{"blue", "green", "orange"}},
	{keys: []string{"tag", "tags", "label", "labels", "category", "categories", "group"},
		strs: []string{"work", "personal", "urgent"}},
	{keys: []string{"status"},
		strs: []string{"active", "pending", "done"}},
	{keys: []string{"priority"},
		strs: []string{"high", "medium", "low"}, nums: []string{"1", "2"}, ints: []string{"1", "2"}},
	{keys: []string{"version"},
		strs: []string{"1.0.0", "2.1.3"}, nums: []string{"1", "2"}, ints: []string{"1", "2"}},
	{keys: []string{"repo", "repository", "reponame", "project", "projectname"},
		strs: []string{"hello-world", "website", "api-server"}},
	{keys: []string{"branch", "ref", "revision"},
		strs: []string{"main", "develop"}},
	{keys: []string{"owner", "org", "organization", "organisation", "team", "company"},
		strs: []string{"example-org", "acme", "octocat"}},
	{keys: []string{"ticker", "symbol", "stock"},
		strs: []string{"AAPL", "MSFT", "GOOG"}},
	{keys: []string{"domain", "host", "hostname", "server"},
		strs: []string{"example.com", "api.example.org"}},
	{keys: []string{"ip", "ipaddress", "ipv4"},
		strs: []string{"192.0.2.10", "198.51.100.7"}},
	{keys: []string{"format", "outputformat", "filetype"},
		strs: []string{"json", "markdown", "csv"}},
	{keys: []string{"sort", "sortby", "orderby", "sortfield"},
		strs: []string{"name", "date", "relevance"}},
	{keys: []string{"order", "direction", "sortorder", "sortdirection"},
		strs: []string{"asc", "desc"}},
	{keys: []string{"entitytype", "kind"},
		strs: []string{"person", "organization", "project"}},
	{keys: []string{"relationtype", "relation"},
		strs: []string{"works_at", "knows", "manages"}},
	{keys: []string{"sql", "sqlquery"},
		strs: []string{"SELECT 1", "SELECT name FROM users LIMIT 5"}},
	{keys: []string{"dryrun", "preview", "validateonly", "simulate", "whatif"},
		bool: &yes},
}

var hintIndex = func() map[string]*hint {
	idx := map[string]*hint{}
	for i := range hints {
		for _, k := range hints[i].keys {
			if _, dup := idx[k]; !dup {
				idx[k] = &hints[i]
			}
		}
	}
	return idx
}()

// lookupHint finds the hint for a property name, or nil.
func lookupHint(name string) *hint {
	words := SplitWords(name)
	if len(words) == 0 {
		return nil
	}
	last := words[len(words)-1]
	cands := []string{strings.Join(words, "")}
	if len(words) >= 2 {
		cands = append(cands, words[len(words)-2]+last)
	}
	cands = append(cands, last, singular(last), words[0], singular(words[0]))
	for _, c := range cands {
		if h, ok := hintIndex[c]; ok {
			return h
		}
	}
	return nil
}

// descriptionKeys are the hint keys trusted when read from a property's
// description rather than its name: nouns that rarely mean anything else.
var descriptionKeys = map[string]bool{
	"name": true, "email": true, "url": true, "uri": true, "link": true, "city": true,
	"country": true, "timezone": true, "query": true, "topic": true, "prompt": true,
	"path": true, "file": true, "filename": true, "directory": true, "folder": true,
	"message": true, "text": true, "title": true, "language": true, "currency": true,
	"phone": true, "date": true, "uuid": true, "username": true, "address": true,
	"ticker": true, "domain": true, "hostname": true, "locale": true, "subject": true,
}

// descriptionHint is the fallback for a string property whose name matches
// no hint: the first of its description's first twelve words that is one
// of [descriptionKeys] ("The name of the entity where the relation starts"
// → name).
func descriptionHint(objs []fobj) *hint {
	for _, o := range objs {
		d, ok := o.m["description"].(string)
		if !ok {
			continue
		}
		words := SplitWords(d)
		if len(words) > 12 {
			words = words[:12]
		}
		for _, w := range words {
			for _, k := range []string{w, singular(w)} {
				if descriptionKeys[k] {
					return hintIndex[k]
				}
			}
		}
		return nil
	}
	return nil
}

// SplitWords breaks a property or tool name into lower-case words at
// separators and camelCase boundaries: "sourceTimezone" → [source timezone],
// "HTTPServer_url" → [http server url].
func SplitWords(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(name)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && len(cur) > 0:
			prevLower := unicode.IsLower(cur[len(cur)-1]) || unicode.IsDigit(cur[len(cur)-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || (unicode.IsUpper(cur[len(cur)-1]) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// singular folds a common English plural: tasks → task, entries → entry,
// boxes → box, addresses → address. Words that merely end in s (status,
// analysis, class) are left alone.
func singular(w string) string {
	switch {
	case len(w) <= 3:
		return w
	case strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"), strings.HasSuffix(w, "shes"), strings.HasSuffix(w, "ches"),
		strings.HasSuffix(w, "xes"), strings.HasSuffix(w, "zes"):
		return w[:len(w)-2]
	case strings.HasSuffix(w, "ss"), strings.HasSuffix(w, "us"), strings.HasSuffix(w, "is"):
		return w
	case strings.HasSuffix(w, "s"):
		return w[:len(w)-1]
	}
	return w
}
