package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The defects profile serves realistic-looking tools, each with one planted
// defect that one of mcpcheck's generated checks must catch, and controls
// that none may flag. The checks are mcp-fuzz's and mcp-reality-check's, as
// the runner generates them (runner/generated.go, with runner/internal/gen,
// assert and runner/internal/score); cmd/mcpcheck's TestDefectsReceipts
// runs them end to end against this profile (examples/defects.yaml) and
// pins what each finds. Each defect is described at the code that plants
// it ("Planted defect"), each control at its tool ("Control").
//
// The contracts are correct (see defects_schemas.go) and the annotations
// honest: all are openWorldHint false, and all readOnlyHint true but the
// create_ tools (destructiveHint false) and the delete_ tools
// (destructiveHint true, idempotentHint true). Arguments outside the
// inputSchema are a tool error: the SDK checks them for most tools, while
// the raw tools check their own by hand.

// Names of the defects profile's tools.
const (
	// Schema fuzzing (crash resilience).
	toolLookupCity   = "lookup_city"
	toolConvertUnits = "convert_units"
	toolParseDate    = "parse_date"
	toolSearchNotes  = "search_notes"

	// Output fidelity.
	toolWeatherReport = "weather_report"
	toolListReminders = "list_reminders"
	toolExchangeRate  = "exchange_rate"
	toolEchoProfile   = "echo_profile"
	toolGetForecast   = "get_forecast"

	// Latency and response size probes.
	toolSlowSearch    = "slow_search"
	toolExportCatalog = "export_catalog"

	// Resource lifecycle.
	toolCreateNote   = "create_note"
	toolGetNote      = "get_note"
	toolDeleteNote   = "delete_note"
	toolCreateLabel  = "create_label"
	toolGetLabel     = "get_label"
	toolDeleteLabel  = "delete_label"
	toolCreateFolder = "create_folder"
	toolGetFolder    = "get_folder"
	toolDeleteFolder = "delete_folder"
	toolCreateFile   = "create_file"
	toolGetFile      = "get_file"
	toolDeleteFile   = "delete_file"

	// Concurrency.
	toolCounterSnapshot = "counter_snapshot"
	toolSharedCacheGet  = "shared_cache_get"
	toolTicketCounter   = "ticket_counter"
)

const (
	// parseDateExitCode is the exit status of the process that parse_date
	// crashes over stdio: that of an unrecovered Go panic.
	parseDateExitCode = 2

	// slowSearchDelay is how long slow_search takes to answer: slow by the
	// run's relative rule (3× the median and 500 ms above it; the other
	// tools answer in about a millisecond, ticket_counter in 250 ms and
	// shared_cache_get in 200 ms, under that margin), and under the
	// absolute 5,000 ms.
	slowSearchDelay = 1200 * time.Millisecond

	// export_catalog answers catalogLines lines of catalogLineWidth
	// characters each, newline included: 60,000 characters, bloated by
	// mcp-fuzz's absolute 20,000. Every other tool's valid result is under
	// 1,000 characters as JSON, so none is a relative outlier.
	catalogLines     = 500
	catalogLineWidth = 120

	// ticket_counter holds its lock for ticketHold; a call that cannot take
	// it within ticketWait is refused as busy. The hold is long enough that
	// calls made at once on independent connections overlap even on a
	// loaded machine (their arrival spreads over tens of milliseconds
	// there; at 50 ms the planted defect came and went with the load), and
	// short enough to stay under the latency rule's 500 ms margin.
	ticketHold = 250 * time.Millisecond
	ticketWait = 20 * time.Millisecond

	// closeGrace is how long parse_date's crash waits, when it closes its
	// session, for the close to begin.
	closeGrace = 200 * time.Millisecond
)

var errBusy = errors.New("busy: the ticket display is being read by another client; try again in a moment")

// defects is the defects profile of one server. Its tools that act on their
// own transport (parse_date) or wait until cancelled (search_notes) are
// activations of f, tagged by the transport's fault layer like the fault
// tools'.
type defects struct {
	f       *faults
	records *perSession[records]
	tickets *ticketLock
	started time.Time
}

func newDefects(f *faults) *defects {
	return &defects{
		f:       f,
		records: newPerSession(newRecords),
		tickets: newTicketLock(defaultTicketLockPath()),
		started: time.Now(),
	}
}

// defectTools lists the defects profile's tools, which every transport
// lists.
var defectTools = []string{
	toolLookupCity, toolConvertUnits, toolParseDate, toolSearchNotes,
	toolWeatherReport, toolListReminders, toolExchangeRate, toolEchoProfile, toolGetForecast,
	toolSlowSearch, toolExportCatalog,
	toolCreateNote, toolGetNote, toolDeleteNote,
	toolCreateLabel, toolGetLabel, toolDeleteLabel,
	toolCreateFolder, toolGetFolder, toolDeleteFolder,
	toolCreateFile, toolGetFile, toolDeleteFile,
	toolCounterSnapshot, toolSharedCacheGet, toolTicketCounter,
	toolFormatAddress, toolListProjects, toolGetProject, toolSharedFolders, toolListFolder,
	toolScanInbox, toolFindTemplate,
	toolSnoozeReminders, toolKitchenTimer, toolCountRoots,
}

// readOnly is the annotation of every defects tool but the lifecycle
// create and delete tools: honest, since none of them changes anything a
// client can see, and none reaches outside the server.
func readOnly(title string) *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: &no}
}

// add registers the defects profile's tools with s.
func (d *defects) add(s *mcp.Server) {
	d.addFuzzTools(s)
	d.addFidelityTools(s)
	d.addProbeTools(s)
	d.addLifecycleTools(s)
	d.addConcurrencyTools(s)
	d.addOfferedTools(s)
	d.addBlindspotTools(s)
	d.addBehaviourTools(s)
	d.addVerdictTools(s)
}

// Schema fuzzing.

type lookupCityIn struct {
	City    string `json:"city"`
	Country string `json:"country,omitempty"`
}

type cityOut struct {
	City        string  `json:"city"`
	Country     string  `json:"country"`
	CountryCode string  `json:"country_code"`
	Timezone    string  `json:"timezone"`
	Latitude    float64 `json:"latitude"`
	Longitude   float64 `json:"longitude"`
	Population  int64   `json:"population"`
}

// atlas is lookup_city's data. London is there twice, which is what its
// country argument is for.
var atlas = []cityOut{
	{"Chicago", "United States", "US", "America/Chicago", 41.8781, -87.6298, 2746388},
	{"Toronto", "Canada", "CA", "America/Toronto", 43.6532, -79.3832, 2794356},
	{"Berlin", "Germany", "DE", "Europe/Berlin", 52.52, 13.405, 3878100},
	{"Tokyo", "Japan", "JP", "Asia/Tokyo", 35.6762, 139.6503, 14094034},
	{"Lisbon", "Portugal", "PT", "Europe/Lisbon", 38.7223, -9.1393, 545796},
	{"London", "United Kingdom", "GB", "Europe/London", 51.5072, -0.1276, 8866180},
	{"London", "Canada", "CA", "America/Toronto", 42.9849, -81.2453, 422324},
	{"Paris", "France", "FR", "Europe/Paris", 48.8566, 2.3522, 2102650},
	{"Sydney", "Australia", "AU", "Australia/Sydney", -33.8688, 151.2093, 5450496},
}

// lookupCity finds a city by name, ignoring case. A country (name or code)
// picks among cities of that name; when none is in that country, the first
// of the name is returned, as geocoders answer with their best match.
func lookupCity(name, country string) (cityOut, bool) {
	var found []cityOut
	for _, c := range atlas {
		if strings.EqualFold(c.City, strings.TrimSpace(name)) {
			found = append(found, c)
		}
	}
	if len(found) == 0 {
		return cityOut{}, false
	}
	country = strings.TrimSpace(country)
	for _, c := range found {
		if strings.EqualFold(c.Country, country) || strings.EqualFold(c.CountryCode, country) {
			return c, true
		}
	}
	return found[0], true
}

var lengthUnits = []string{"km", "m", "cm", "mm", "mi", "yd", "ft", "in"}

// metres is the length of each unit in metres.
var metres = map[string]float64{
	"km": 1000, "m": 1, "cm": 0.01, "mm": 0.001,
	"mi": 1609.344, "yd": 0.9144, "ft": 0.3048, "in": 0.0254,
}

type convertUnitsOut struct {
	Value  float64 `json:"value"`
	From   string  `json:"from"`
	To     string  `json:"to"`
	Result float64 `json:"result"`
}

type parseDateOut struct {
	Date      string `json:"date"`
	Weekday   string `json:"weekday"`
	DayOfYear int    `json:"day_of_year"`
	ISOWeek   int    `json:"iso_week"`
}

type searchNotesOut struct {
	Query   string    `json:"query"`
	Total   int       `json:"total"`
	Results []noteRef `json:"results"`
}

// Bounds of search_notes' arguments, as its inputSchema declares them.
const (
	maxQueryLen  = 200
	defaultLimit = 10
	maxLimit     = 50
)

func (d *defects) addFuzzTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:  toolLookupCity,
		Title: "Look up city",
		Description: "Looks up a city by name and returns its country, time zone, coordinates and population. " +
			"country chooses between cities of the same name. An unknown city is a tool error.",
		InputSchema:  lookupCityInputSchema,
		OutputSchema: lookupCityOutputSchema,
		Annotations:  readOnly("Look up city"),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in lookupCityIn) (*mcp.CallToolResult, cityOut, error) {
		// Control: every bad input is a tool error, as is an unknown city.
		c, ok := lookupCity(in.City, in.Country)
		if !ok {
			return nil, cityOut{}, fmt.Errorf("no city named %q in the atlas", in.City)
		}
		return nil, c, nil
	})

	// convert_units, parse_date and search_notes are raw tools: each
	// checks its arguments by hand, and each check it forgot is its defect.
	// (The SDK's typed tools would validate the arguments first.)
	s.AddTool(&mcp.Tool{
		Name:         toolConvertUnits,
		Title:        "Convert units",
		Description:  "Converts a length from one unit to another (km, m, cm, mm, mi, yd, ft, in).",
		InputSchema:  convertUnitsInputSchema,
		OutputSchema: convertUnitsOutputSchema,
		Annotations:  readOnly("Convert units"),
	}, d.convertUnits)

	s.AddTool(&mcp.Tool{
		Name:         toolParseDate,
		Title:        "Parse date",
		Description:  "Parses a calendar date (YYYY-MM-DD) and returns its weekday, day of the year and ISO week.",
		InputSchema:  parseDateInputSchema,
		OutputSchema: parseDateOutputSchema,
		Annotations:  readOnly("Parse date"),
	}, d.parseDate)

	s.AddTool(&mcp.Tool{
		Name:  toolSearchNotes,
		Title: "Search notes",
		Description: "Searches this session's notes (see create_note) for a query in their titles and bodies, " +
			"oldest first, and returns at most limit of them.",
		InputSchema:  searchNotesInputSchema,
		OutputSchema: searchNotesOutputSchema,
		Annotations:  readOnly("Search notes"),
	}, d.searchNotes)
}

// convertUnits is convert_units' handler.
//
// Planted defect: it checks from, to and that value is present, then
// treats value as a number; any other JSON type fails the conversion
// (a failed type assertion, which a recovering middleware would report)
// and is answered with a JSON-RPC internal error, -32603, instead of a
// tool error.
func (d *defects) convertUnits(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, res := objectArgs(req.Params.Arguments, "value", "from", "to")
	if res != nil {
		return res, nil
	}
	from, err := enumArg(args, "from", lengthUnits)
	if err != nil {
		return toolError(err), nil
	}
	to, err := enumArg(args, "to", lengthUnits)
	if err != nil {
		return toolError(err), nil
	}
	v, ok := args["value"]
	if !ok {
		return toolError(errors.New(`validating "arguments": value is required`)), nil
	}
	x, ok := v.(float64)
	if !ok {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "internal error: " + conversionPanic(v, "float64")}
	}
	return structuredResult(convertUnitsOut{Value: x, From: from, To: to, Result: roundSignificant(x * metres[from] / metres[to])})
}

// conversionPanic is the message of the panic that the type assertion
// v.(want) raises in Go.
func conversionPanic(v any, want string) string {
	got := "nil"
	if v != nil {
		got = fmt.Sprintf("%T", v)
	}
	return fmt.Sprintf("interface conversion: interface {} is %s, not %s", got, want)
}

// roundSignificant rounds x to 10 significant digits, so that results
// like 0.1 × 3 read as 0.3.
func roundSignificant(x float64) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 10, 64), 64)
	return r
}

// parseDate is parse_date's handler.
//
// Planted defect: a call without date crashes the server (see crash), so
// the missing-required case ends in transport_closed and the runner must
// relaunch (or reconnect) and go on. A date of the wrong type or shape is
// a tool error, as it should be.
func (d *defects) parseDate(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	args, res := objectArgs(req.Params.Arguments, "date")
	if res != nil {
		return res, nil
	}
	v, ok := args["date"]
	if !ok {
		return d.crash(req), nil
	}
	s, ok := v.(string)
	if !ok {
		return toolError(fmt.Errorf(`validating "arguments": date must be a string in the form YYYY-MM-DD, not %s`, jsonType(v))), nil
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return toolError(fmt.Errorf("date %q is not a calendar date in the form YYYY-MM-DD", s)), nil
	}
	_, week := t.ISOWeek()
	return structuredResult(parseDateOut{Date: t.Format(time.DateOnly), Weekday: t.Weekday().String(), DayOfYear: t.YearDay(), ISOWeek: week})
}

// crash is what parse_date does to its server when date is missing, by
// transport: over stdio the process exits with status 2 after a line on
// stderr; over Streamable HTTP this request's connection is dropped, as the
// disconnect fault tool does; elsewhere (NewServer) the calling session is
// closed. No result reaches the client in any case.
func (d *defects) crash(req *mcp.CallToolRequest) *mcp.CallToolResult {
	a, release, err := d.f.activate(req)
	if err != nil {
		return toolError(err)
	}
	defer release()
	switch {
	case d.f.kind == stdioTransport:
		fmt.Fprintf(d.f.stderr, "mcpcheck demo: parse_date was called without a date and crashed; exiting with status %d\n", parseDateExitCode)
		d.f.exit(parseDateExitCode)
		return toolError(errors.New("parse_date: exit returned")) // only when exit is replaced
	case a.closeStream != nil:
		a.respond(dropResponse)
		a.closeStream()
	default:
		// Close waits for the session's calls in flight, this one included,
		// so it must run on its own; once it has begun, the SDK drops this
		// call's response. Nothing signals that it has begun, hence the
		// pause.
		go req.Session.Close()
		time.Sleep(closeGrace)
	}
	return toolError(errors.New("parse_date: crashed"))
}

// searchNotes is search_notes' handler.
func (d *defects) searchNotes(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	query, limit, hang, res := searchArgs(req.Params.Arguments)
	switch {
	case res != nil:
		return res, nil
	case hang:
		return d.hang(ctx, req), nil
	}
	total, hits := d.records.get(req.Session).searchNotes(query, limit)
	return structuredResult(searchNotesOut{Query: query, Total: total, Results: hits})
}

// searchArgs checks search_notes' arguments: the query and limit to use,
// or the tool error to answer with, or hang.
//
// Planted defect: a limit that is present but not a number is taken for a
// page cursor still to come, and the handler waits for it (see hang) until
// the call is cancelled. A number outside 1..50 is a tool error.
func searchArgs(raw json.RawMessage) (query string, limit int, hang bool, res *mcp.CallToolResult) {
	args, res := objectArgs(raw, "query", "limit")
	if res != nil {
		return "", 0, false, res
	}
	query, err := stringArg(args, "query", maxQueryLen)
	if err != nil {
		return "", 0, false, toolError(err)
	}
	limit = defaultLimit
	if v, ok := args["limit"]; ok {
		n, isNum := v.(float64)
		if !isNum {
			return "", 0, true, nil
		}
		if n != math.Trunc(n) || n < 1 || n > maxLimit {
			return "", 0, false, toolError(fmt.Errorf(`validating "arguments": limit must be an integer from 1 to %d`, maxLimit))
		}
		limit = int(n)
	}
	return query, limit, false, nil
}

// searchHangs reports whether req is a call of search_notes that will hang
// until cancelled, so that the end of stdio input need not wait for it.
func searchHangs(req *jsonrpc.Request) bool {
	if toolCallName(req) != toolSearchNotes {
		return false
	}
	var p struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return false
	}
	_, _, hang, _ := searchArgs(p.Arguments)
	return hang
}

// hang waits until the call is cancelled or its transport goes away, and
// then sends nothing over stdio and Streamable HTTP, as the hang fault tool
// does.
func (d *defects) hang(ctx context.Context, req *mcp.CallToolRequest) *mcp.CallToolResult {
	a, release, err := d.f.activate(req)
	if err != nil {
		return toolError(err)
	}
	defer release()
	select {
	case <-ctx.Done():
	case <-a.stopped():
	}
	a.respond(dropResponse)
	return toolError(errors.New("search_notes: cancelled while waiting for the next page"))
}

// Output fidelity.

type cityIn struct {
	City string `json:"city"`
}

type exchangeRateOut struct {
	From string `json:"from"`
	To   string `json:"to"`
	// Planted defect: the outputSchema declares rate a number; it is sent
	// as a string ("0.9200"), so structuredContent fails the outputSchema
	// at /rate. The go-sdk client does not check it.
	Rate string `json:"rate"`
	AsOf string `json:"as_of"`
}

var currencies = []string{"USD", "EUR", "GBP", "JPY", "CAD", "CHF", "AUD"}

// perUSD is how much of each currency one US dollar buys.
var perUSD = map[string]float64{"USD": 1, "EUR": 0.92, "GBP": 0.79, "JPY": 151.2, "CAD": 1.36, "CHF": 0.88, "AUD": 1.52}

type getForecastIn struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

type forecastDay struct {
	Date                string  `json:"date"`
	Summary             string  `json:"summary"`
	HighC               float64 `json:"high_c"`
	LowC                float64 `json:"low_c"`
	PrecipitationChance int     `json:"precipitation_chance"`
}

type forecastOut struct {
	City  string        `json:"city"`
	Daily []forecastDay `json:"daily"`
}

var skies = []string{"sunny", "partly cloudy", "cloudy", "light rain", "showers", "windy", "fog in the morning"}

// forecast is get_forecast's synthetic weather: the same city and date
// always get the same day.
func forecast(city string, days int, today time.Time) forecastOut {
	out := forecastOut{City: city, Daily: make([]forecastDay, 0, days)}
	for i := range days {
		date := today.AddDate(0, 0, i).Format(time.DateOnly)
		h := fnv.New32a()
		h.Write([]byte(strings.ToLower(city) + "|" + date))
		n := h.Sum32()
		high := float64(int(n%25) - 2)
		out.Daily = append(out.Daily, forecastDay{
			Date:                date,
			Summary:             skies[n/25%uint32(len(skies))],
			HighC:               high,
			LowC:                high - float64(3+n/7%6),
			PrecipitationChance: int(n / 11 % 11 * 10),
		})
	}
	return out
}

func (d *defects) addFidelityTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:        toolWeatherReport,
		Title:       "Weather report",
		Description: "Returns a short report of the current weather in a city.",
		InputSchema: cityInputSchema,
		Annotations: readOnly("Weather report"),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in cityIn) (*mcp.CallToolResult, any, error) {
		// Planted defect: a refusal reported as a success, matched by the
		// phrase "I'm sorry, but I can't". It names the city, so it draws
		// no echo note.
		return textResult(fmt.Sprintf("I'm sorry, but I can't access live weather data for %s right now. "+
			"Please check a local weather service for the latest conditions.", in.City)), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        toolListReminders,
		Title:       "List reminders",
		Description: "Lists this session's upcoming reminders.",
		InputSchema: noArgsSchema,
		Annotations: readOnly("List reminders"),
	}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		// Planted defect: success with nothing in it, not even "no reminders".
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil, nil
	})

	// exchange_rate is raw: the SDK's typed tools validate results against
	// their outputSchema, which this one breaks.
	s.AddTool(&mcp.Tool{
		Name:         toolExchangeRate,
		Title:        "Exchange rate",
		Description:  "Returns today's exchange rate between two currencies.",
		InputSchema:  exchangeRateInputSchema,
		OutputSchema: exchangeRateOutputSchema,
		Annotations:  readOnly("Exchange rate"),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, res := objectArgs(req.Params.Arguments, "from", "to")
		if res != nil {
			return res, nil
		}
		from, err := enumArg(args, "from", currencies)
		if err != nil {
			return toolError(err), nil
		}
		to, err := enumArg(args, "to", currencies)
		if err != nil {
			return toolError(err), nil
		}
		return structuredResult(exchangeRateOut{
			From: from,
			To:   to,
			Rate: strconv.FormatFloat(perUSD[to]/perUSD[from], 'f', 4, 64),
			AsOf: time.Now().UTC().Format(time.DateOnly),
		})
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        toolEchoProfile,
		Title:       "Echo profile",
		Description: "Returns a summary of a customer's profile by name.",
		InputSchema: nameInputSchema("The customer's full name."),
		Annotations: readOnly("Echo profile"),
	}, func(context.Context, *mcp.CallToolRequest, nameIn) (*mcp.CallToolResult, any, error) {
		// Planted defect (a note, not a failure): the summary is of the
		// default profile and never names the customer asked about.
		return textResult("Profile loaded: 3 saved addresses, 12 past orders, preferred language English, " +
			"member since 2019."), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:         toolGetForecast,
		Title:        "Get forecast",
		Description:  "Returns the daily weather forecast for a city, starting today: 1 to 5 days, 3 by default.",
		InputSchema:  getForecastInputSchema,
		OutputSchema: getForecastOutputSchema,
		Annotations:  readOnly("Get forecast"),
	}, func(_ context.Context, _ *mcp.CallToolRequest, in getForecastIn) (*mcp.CallToolResult, forecastOut, error) {
		// Control: a correct result, with a text summary that names the
		// city; no check flags it.
		out := forecast(in.City, in.Days, time.Now().UTC())
		var b strings.Builder
		fmt.Fprintf(&b, "%d-day forecast for %s:", len(out.Daily), out.City)
		for _, day := range out.Daily {
			fmt.Fprintf(&b, " %s %s, %g/%g °C, %d%% chance of rain;", day.Date, day.Summary, day.HighC, day.LowC, day.PrecipitationChance)
		}
		return textResult(strings.TrimSuffix(b.String(), ";") + "."), out, nil
	})
}

// Latency and response size probes.

type queryIn struct {
	Query string `json:"query"`
}

type searchHit struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

type slowSearchOut struct {
	Query   string      `json:"query"`
	Results []searchHit `json:"results"`
}

// catalog is export_catalog's text: catalogLines product lines, each
// padded to catalogLineWidth characters with its newline.
var catalog = sync.OnceValue(func() string {
	materials := []string{"Stainless steel", "Bamboo", "Ceramic", "Linen", "Recycled glass", "Cast-iron", "Oak", "Merino wool", "Copper", "Stoneware"}
	items := []string{"water bottle", "cutting board", "coffee mug", "tea towel", "notebook", "skillet", "wall shelf", "throw blanket", "kettle", "vase", "desk lamp", "planter"}
	colours := []string{"charcoal", "sage", "sand", "navy", "terracotta", "white", "black", "ochre"}
	var b strings.Builder
	b.Grow(catalogLines * catalogLineWidth)
	for i := range catalogLines {
		line := fmt.Sprintf("SKU-%05d | %-30s | %-10s | %7.2f USD | %4d in stock",
			10001+i,
			materials[i%len(materials)]+" "+items[i/len(materials)%len(items)],
			colours[i%len(colours)],
			4.99+float64(i%37)*2.5,
			(i*37)%500)
		b.WriteString(line)
		b.WriteString(strings.Repeat(" ", catalogLineWidth-1-len(line)))
		b.WriteByte('\n')
	}
	return b.String()
})

func (d *defects) addProbeTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolSlowSearch,
		Title:        "Slow search",
		Description:  "Searches the web and returns the top two results.",
		InputSchema:  queryInputSchema,
		OutputSchema: slowSearchOutputSchema,
		Annotations:  readOnly("Slow search"),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in queryIn) (*mcp.CallToolResult, slowSearchOut, error) {
		// Planted defect: a correct answer, late (and, asked for
		// progress, cancelled badly: cancelprogress.go).
		progress := reportSearch(ctx, req)
		t := time.NewTimer(slowSearchDelay)
		defer t.Stop()
		select {
		case <-t.C:
			progress.finished()
		case <-ctx.Done():
			progress.cancelled()
			return nil, slowSearchOut{}, ctx.Err()
		}
		// Short, so that its size is no second outlier.
		return nil, slowSearchOut{Query: in.Query, Results: []searchHit{
			{Title: in.Query + ": an overview", URL: "https://search.example.com/r/1"},
			{Title: "Latest news about " + in.Query, URL: "https://search.example.com/r/2"},
		}}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        toolExportCatalog,
		Title:       "Export catalog",
		Description: "Exports the product catalog as text, one product per line.",
		InputSchema: noArgsSchema,
		Annotations: readOnly("Export catalog"),
	}, func(context.Context, *mcp.CallToolRequest, noArgs) (*mcp.CallToolResult, any, error) {
		// Planted defect: 60,000 characters in one answer.
		return textResult(catalog()), nil, nil
	})
}

// Concurrency.

type counterSnapshotOut struct {
	Notes   int `json:"notes"`
	Labels  int `json:"labels"`
	Folders int `json:"folders"`
	Files   int `json:"files"`
}

type cacheKeyIn struct {
	Key string `json:"key"`
}

type cacheEntryOut struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

type ticketOut struct {
	NowServing int64 `json:"now_serving"`
}

// cacheValues are shared_cache_get's well-known entries; any other key has
// a value derived from it.
var cacheValues = map[string]string{"theme": "dark", "locale": "en-US", "timezone": "America/New_York", "currency": "USD"}

func cacheValue(key string) string {
	if v, ok := cacheValues[key]; ok {
		return v
	}
	h := fnv.New32a()
	h.Write([]byte(key))
	return fmt.Sprintf("v1:%08x", h.Sum32())
}

func (d *defects) addConcurrencyTools(s *mcp.Server) {
	mcp.AddTool(s, &mcp.Tool{
		Name:         toolCounterSnapshot,
		Title:        "Counter snapshot",
		Description:  "Returns how many notes, labels, folders and files this session holds.",
		InputSchema:  noArgsSchema,
		OutputSchema: counterSnapshotOutputSchema,
		Annotations:  readOnly("Counter snapshot"),
	}, func(_ context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, counterSnapshotOut, error) {
		// Control: safe under any concurrency.
		return nil, d.records.get(req.Session).counts(), nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:         toolSharedCacheGet,
		Title:        "Shared cache get",
		Description:  "Reads a value from the shared settings cache by key.",
		InputSchema:  sharedCacheGetInputSchema,
		OutputSchema: sharedCacheGetOutputSchema,
		Annotations:  readOnly("Shared cache get"),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in cacheKeyIn) (*mcp.CallToolResult, cacheEntryOut, error) {
		key, err := d.records.get(req.Session).cacheKey(ctx, in.Key)
		if err != nil {
			return nil, cacheEntryOut{}, err
		}
		return nil, cacheEntryOut{Key: key, Value: cacheValue(key)}, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:  toolTicketCounter,
		Title: "Ticket counter",
		Description: "Reads the number now being served from the shared ticket display. Only one client can read " +
			"the display at a time; a call that cannot get to it quickly is refused as busy.",
		InputSchema:  noArgsSchema,
		OutputSchema: ticketCounterOutputSchema,
		Annotations:  readOnly("Ticket counter"),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, ticketOut, error) {
		// Planted defect: every reader, on any connection, goes through one
		// lock held for ticketHold, and gives up after ticketWait. One call
		// at a time always succeeds; called at once on independent
		// connections, some calls fail on identical input.
		release, ok, err := d.tickets.acquire(ctx, ticketWait)
		switch {
		case err != nil:
			return nil, ticketOut{}, err
		case !ok:
			return nil, ticketOut{}, errBusy
		}
		defer release()
		t := time.NewTimer(ticketHold)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ticketOut{}, ctx.Err()
		}
		// The clerk calls the next ticket once a minute.
		return nil, ticketOut{NowServing: 1 + int64(time.Since(d.started)/time.Minute)}, nil
	})
}

// Arguments of raw tools, and their results.

// objectArgs decodes a raw tool's arguments, which must be an object (or
// absent) with no keys but allowed, or returns the tool error to answer
// with. Numbers decode as float64.
func objectArgs(raw json.RawMessage, allowed ...string) (map[string]any, *mcp.CallToolResult) {
	if res := checkArgs(raw, allowed...); res != nil {
		return nil, res
	}
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return nil, toolError(fmt.Errorf(`validating "arguments": %v`, err))
		}
	}
	return args, nil
}

// enumArg returns the required string argument name, one of allowed.
func enumArg(args map[string]any, name string, allowed []string) (string, error) {
	v, ok := args[name]
	if !ok {
		return "", fmt.Errorf(`validating "arguments": %s is required`, name)
	}
	s, ok := v.(string)
	if ok {
		for _, a := range allowed {
			if s == a {
				return s, nil
			}
		}
	}
	return "", fmt.Errorf(`validating "arguments": %s must be one of %s`, name, strings.Join(allowed, ", "))
}

// stringArg returns the required string argument name, of 1 to maxLen
// characters.
func stringArg(args map[string]any, name string, maxLen int) (string, error) {
	v, ok := args[name]
	if !ok {
		return "", fmt.Errorf(`validating "arguments": %s is required`, name)
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf(`validating "arguments": %s must be a string, not %s`, name, jsonType(v))
	}
	if n := len([]rune(s)); n < 1 || n > maxLen {
		return "", fmt.Errorf(`validating "arguments": %s must be 1 to %d characters long`, name, maxLen)
	}
	return s, nil
}

// jsonType names the JSON type of a decoded value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// structuredResult is a result with v as structuredContent and as JSON text.
func structuredResult(v any) (*mcp.CallToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(b)}},
		StructuredContent: json.RawMessage(b),
	}, nil
}

func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}
