package demo

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResourcesListed(t *testing.T) {
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		ctx := testContext(t)
		cs := sf.connect(t, newClient(), version)
		res, err := cs.ListResources(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range res.Resources {
			got = append(got, r.URI+" "+r.MIMEType)
			if r.Name == "" || r.Description == "" {
				t.Errorf("%s: name %q, description %q", r.URI, r.Name, r.Description)
			}
		}
		if want := []string{"household://about text/markdown", "household://tasks application/json"}; !slices.Equal(got, want) {
			t.Errorf("resources %q, want %q", got, want)
		}
		tmpl, err := cs.ListResourceTemplates(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(tmpl.ResourceTemplates) != 1 || tmpl.ResourceTemplates[0].URITemplate != "household://tasks/{id}" || tmpl.ResourceTemplates[0].MIMEType != "application/json" {
			t.Errorf("templates %+v, want household://tasks/{id} (application/json)", tmpl.ResourceTemplates)
		}
	})
}

// TestResourceRead reads each resource and the template, before and after
// a commit, and the errors for what does not exist.
func TestResourceRead(t *testing.T) {
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		ctx := testContext(t)
		cs := sf.connect(t, newClient(), version)
		read := func(uri, mime, scope string) string {
			t.Helper()
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			if err != nil {
				t.Fatalf("read %s: %v", uri, err)
			}
			if len(res.Contents) != 1 {
				t.Fatalf("read %s: %d contents, want 1", uri, len(res.Contents))
			}
			c := res.Contents[0]
			if c.URI != uri || c.MIMEType != mime {
				t.Errorf("read %s: contents for %s (%s), want %s", uri, c.URI, c.MIMEType, mime)
			}
			if res.CacheScope != scope {
				t.Errorf("read %s: cacheScope %q, want %q", uri, res.CacheScope, scope)
			}
			return c.Text
		}

		if about := read("household://about", "text/markdown", "public"); !strings.HasPrefix(about, "# Household task list") || !strings.Contains(about, "tidy_household") {
			t.Errorf("about: %q", about)
		}
		if got, want := canonical(t, jsonText(read("household://tasks", "application/json", "private"))), `{"revision":0,"tasks":[]}`; got != want {
			t.Errorf("tasks: %s, want %s", got, want)
		}
		addTask(t, ctx, cs, "Water the plants")
		if got, want := canonical(t, jsonText(read("household://tasks", "application/json", "private"))), `{"revision":1,"tasks":[{"id":"task-1","text":"Water the plants"}]}`; got != want {
			t.Errorf("tasks after a commit: %s, want %s", got, want)
		}
		if got, want := canonical(t, jsonText(read("household://tasks/task-1", "application/json", "private"))), `{"id":"task-1","text":"Water the plants"}`; got != want {
			t.Errorf("task-1: %s, want %s", got, want)
		}

		for _, uri := range []string{"household://tasks/task-2", "household://tasks/", "household://tasks/TASK-1"} {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			we := wantRPCError(t, "read "+uri, err, -32002)
			if got, want := canonical(t, we.Data), canonical(t, map[string]string{"uri": uri}); got != want {
				t.Errorf("read %s: data %s, want %s", uri, got, want)
			}
		}
		// A URI that matches neither a resource nor the template is answered
		// by the SDK itself, with the code of SEP-2164.
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "household://nothing"})
		wantRPCError(t, "read household://nothing", err, jsonrpc.CodeInvalidParams)
	})
}

// TestResourceSubscribe subscribes to household://tasks and checks that
// each commit that adds a task, and only such a commit, is announced once.
// Under 2026-07-28 Subscribe opens subscriptions/listen and returns at once;
// the server's acknowledgement says when the subscription is in place.
func TestResourceSubscribe(t *testing.T) {
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		ctx := testContext(t)
		w := newWatcher()
		cs := sf.connect(t, w.client(), version)
		subscribe := func(uri string) error {
			t.Helper()
			acks := w.count(func() int { return w.acks })
			err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri})
			if err == nil && negotiated(cs) == "2026-07-28" {
				w.await(t, "subscriptions/acknowledged", func() bool { return w.acks > acks })
			}
			return err
		}

		addTask(t, ctx, cs, "before subscribing")
		if err := subscribe("household://tasks"); err != nil {
			t.Fatalf("subscribe: %v", err)
		}
		if got := w.updates(t, ctx, cs); len(got) != 0 {
			t.Errorf("updates before any commit since subscribing: %q", got)
		}
		addTask(t, ctx, cs, "Water the plants")
		w.await(t, "an update", func() bool { return len(w.updated) > 0 })
		if got := w.updates(t, ctx, cs); !slices.Equal(got, []string{"household://tasks"}) {
			t.Errorf("updates %q, want one for household://tasks", got)
		}

		// A proposal and a replayed commit change nothing.
		mustOK(t, ctx, cs, "propose_task", args("text", "t"))
		mustOK(t, ctx, cs, "commit_task", args("proposalId", "proposal-2", "expectedRevision", 1, "idempotencyKey", "key-proposal-2"))
		if got := w.updates(t, ctx, cs); len(got) != 1 {
			t.Errorf("updates after a proposal and a replay: %q, want 1", got)
		}
		addTask(t, ctx, cs, "Empty the bins")
		w.await(t, "a second update", func() bool { return len(w.updated) > 1 })
		if got := w.updates(t, ctx, cs); len(got) != 2 {
			t.Errorf("updates after two commits: %q, want 2", got)
		}

		// Resources that exist may be subscribed to; under 2025-11-25 one that
		// does not is refused with -32002, and under 2026-07-28 the go-sdk
		// client never sees the refusal (it does not wait for the listen's
		// answer).
		for _, uri := range []string{"household://about", "household://tasks/task-1"} {
			if err := subscribe(uri); err != nil {
				t.Errorf("subscribe %s: %v", uri, err)
			}
		}
		if negotiated(cs) == "2025-11-25" {
			for _, uri := range []string{"household://tasks/task-9", "household://nothing", "other://x"} {
				wantRPCError(t, "subscribe "+uri, cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}), -32002)
			}
			// Under 2025-11-25 unsubscribing is a request, done when answered.
			if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "household://tasks"}); err != nil {
				t.Fatalf("unsubscribe: %v", err)
			}
			addTask(t, ctx, cs, "after unsubscribing")
			if got := w.updates(t, ctx, cs); len(got) != 2 {
				t.Errorf("updates after unsubscribing: %q, want 2", got)
			}
		}
	})
}

// TestResourceUpdatesStayInSession checks that a commit is announced only
// to the session that made it, although the SDK keeps subscriptions per
// server.
func TestResourceUpdatesStayInSession(t *testing.T) {
	onEverySurface(t, func(t *testing.T, sf surface, version string) {
		if !sf.shared {
			t.Skip("each stdio session is its own server")
		}
		ctx := testContext(t)
		wa, wb := newWatcher(), newWatcher()
		a, b := sf.connect(t, wa.client(), version), sf.connect(t, wb.client(), version)
		for _, s := range []struct {
			cs *mcp.ClientSession
			w  *watcher
		}{{a, wa}, {b, wb}} {
			if err := s.cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "household://tasks"}); err != nil {
				t.Fatal(err)
			}
			if negotiated(s.cs) == "2026-07-28" {
				s.w.await(t, "subscriptions/acknowledged", func() bool { return s.w.acks == 1 })
			}
		}
		addTask(t, ctx, a, "a's task")
		wa.await(t, "a's update", func() bool { return len(wa.updated) > 0 })
		if got := wb.updates(t, ctx, b); len(got) != 0 {
			t.Errorf("b got %q for a's commit", got)
		}
		addTask(t, ctx, b, "b's task")
		wb.await(t, "b's update", func() bool { return len(wb.updated) > 0 })
		if got := wa.updates(t, ctx, a); len(got) != 1 {
			t.Errorf("a got %q, want 1 update", got)
		}
		if got := wb.updates(t, ctx, b); len(got) != 1 {
			t.Errorf("b got %q, want 1 update", got)
		}
	})
}

// jsonText is a resource's text as JSON, for canonical.
func jsonText(s string) json.RawMessage { return json.RawMessage(s) }
