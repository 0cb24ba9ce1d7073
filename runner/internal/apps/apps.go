// Package apps judges MCP Apps (the extension io.modelcontextprotocol/ui,
// 2026-01-26): a tool whose _meta.ui.resourceUri names a ui:// resource is
// an app; a host reads
// that resource and renders it in a sandboxed frame under the CSP the
// resource's _meta.ui declares. With the generated reads (fidelity) or the
// protocol probes, every such tool gets one check, a resources/read of its
// UI resource, judged by the extension's rules:
//
//   - the URI MUST start with ui://, and the resource MUST exist (the read
//     answers); its content's mimeType MUST be text/html;profile=mcp-app,
//     with text or blob, and be an HTML document;
//   - _meta.ui, on the listing and on the content, is well formed: csp
//     holds arrays of origins (a scheme and host, a wildcard subdomain
//     allowed; no path, query or bare "*"), permissions holds objects,
//     domain is a string, prefersBorder a boolean; the tool's visibility,
//     when given, names only "model" and "app".
//
// Notes, not failures: a UI resource absent from resources/list (servers
// MAY omit UI-only resources), a listing whose mimeType is another (it
// SHOULD be the apps type), keys the extension does not define.
package apps

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/tidwall/gjson"
)

// MIME is the MIME type of an MCP App's HTML resource.
const MIME = "text/html;profile=mcp-app"

// Check is what the check of one app's UI resource knows from discovery.
type Check struct {
	Tool   string
	UIMeta gjson.Result    // the tool's _meta.ui
	Listed json.RawMessage // the resources/list entry, nil when not listed
}

// Judge judges an app's UI resource as read (raw is the read's result).
func Judge(a *Check, uri string, raw json.RawMessage) (fails, notes []string) {
	fail := func(format string, args ...any) { fails = append(fails, fmt.Sprintf(format, args...)) }
	if !strings.HasPrefix(uri, "ui://") {
		fail("tool %q names %q as its UI; an app's resource URI MUST start with ui://", a.Tool, uri)
	}
	if v := a.UIMeta.Get("visibility"); v.Exists() {
		ok := v.IsArray()
		for _, x := range v.Array() {
			ok = ok && (x.String() == "model" || x.String() == "app")
		}
		if !ok {
			fail("tool %q: _meta.ui.visibility %s names other than \"model\" and \"app\"", a.Tool, clip(v.Raw))
		}
	}
	if a.Listed == nil {
		notes = append(notes, "the UI resource is not in resources/list (allowed: servers MAY omit UI-only resources)")
	} else {
		if m := gjson.GetBytes(a.Listed, "mimeType").String(); m != MIME {
			notes = append(notes, fmt.Sprintf("resources/list gives the UI resource mimeType %q; it SHOULD be %s", m, MIME))
		}
		fails, notes = uiMeta("the listing's", gjson.GetBytes(a.Listed, "_meta.ui"), fails, notes)
	}
	contents := gjson.GetBytes(raw, "contents").Array()
	if len(contents) == 0 {
		fail("resources/read of the UI resource has no contents")
		return fails, notes
	}
	c := contents[0]
	if m := c.Get("mimeType").String(); m != MIME {
		fail("the UI resource is served as %q; an app's HTML MUST be %s", m, MIME)
	}
	text := c.Get("text").String()
	if b := c.Get("blob"); b.Exists() && !c.Get("text").Exists() {
		d, err := base64.StdEncoding.DecodeString(b.String())
		if err != nil {
			fail("the UI resource's blob is not base64")
		}
		text = string(d)
	}
	if !c.Get("text").Exists() && !c.Get("blob").Exists() {
		fail("the UI resource's content has neither text nor blob")
	} else if low := strings.ToLower(text); !strings.Contains(low, "<!doctype html") && !strings.Contains(low, "<html") {
		fail("the UI resource is not an HTML document (no <!DOCTYPE html> or <html>); it MUST be one")
	}
	return uiMeta("the content's", c.Get("_meta.ui"), fails, notes)
}

// uiKeys are the members of a resource's _meta.ui, cspKeys of its csp,
// permissionKeys of its permissions (2026-01-26).
var (
	uiKeys         = []string{"csp", "permissions", "domain", "prefersBorder"}
	cspKeys        = []string{"connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"}
	permissionKeys = []string{"camera", "microphone", "geolocation", "clipboardWrite"}
)

// uiMeta judges one _meta.ui object of a UI resource.
func uiMeta(where string, ui gjson.Result, fails, notes []string) ([]string, []string) {
	if !ui.Exists() {
		return fails, notes
	}
	fail := func(format string, args ...any) { fails = append(fails, where+" "+fmt.Sprintf(format, args...)) }
	note := func(format string, args ...any) { notes = append(notes, where+" "+fmt.Sprintf(format, args...)) }
	if !ui.IsObject() {
		fail("_meta.ui is not an object")
		return fails, notes
	}
	ui.ForEach(func(k, v gjson.Result) bool {
		if !slices.Contains(uiKeys, k.String()) {
			note("_meta.ui has %q, which the extension does not define", k.String())
		}
		return true
	})
	if csp := ui.Get("csp"); csp.Exists() {
		if !csp.IsObject() {
			fail("_meta.ui.csp is not an object")
		}
		csp.ForEach(func(k, v gjson.Result) bool {
			if !slices.Contains(cspKeys, k.String()) {
				note("_meta.ui.csp has %q, which the extension does not define", k.String())
				return true
			}
			if !v.IsArray() {
				fail("_meta.ui.csp.%s is not an array of origins", k.String())
				return true
			}
			for i, d := range v.Array() {
				if why := notOrigin(d); why != "" {
					fail("_meta.ui.csp.%s[%d] %s %s", k.String(), i, clip(d.Raw), why)
				}
			}
			return true
		})
	}
	if p := ui.Get("permissions"); p.Exists() {
		if !p.IsObject() {
			fail("_meta.ui.permissions is not an object")
		}
		p.ForEach(func(k, v gjson.Result) bool {
			switch {
			case !slices.Contains(permissionKeys, k.String()):
				note("_meta.ui.permissions has %q, which the extension does not define", k.String())
			case !v.IsObject():
				fail("_meta.ui.permissions.%s is %s; a permission is requested with an object ({})", k.String(), clip(v.Raw))
			}
			return true
		})
	}
	if d := ui.Get("domain"); d.Exists() && d.Type != gjson.String {
		fail("_meta.ui.domain is not a string")
	}
	if b := ui.Get("prefersBorder"); b.Exists() && !b.IsBool() {
		fail("_meta.ui.prefersBorder is not a boolean")
	}
	return fails, notes
}

// notOrigin says why a CSP entry is not an origin ("" when it is one): a
// scheme and a host (a leading "*." wildcard allowed), an optional port,
// nothing else.
func notOrigin(d gjson.Result) string {
	if d.Type != gjson.String {
		return "is not a string"
	}
	s := d.String()
	if s == "*" || !strings.Contains(s, "://") {
		return "is not an origin (a scheme and a host, such as https://api.example.com)"
	}
	u, err := url.Parse(strings.Replace(s, "://*.", "://wildcard.", 1))
	switch {
	case err != nil || u.Host == "" || u.Opaque != "":
		return "is not an origin (a scheme and a host, such as https://api.example.com)"
	case u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "":
		return "is more than an origin (a path, query, fragment or credentials); CSP sources here are origins"
	}
	return ""
}

// clip is a server value shortened for a message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
