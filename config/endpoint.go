package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// CheckEndpoint reports why raw is not an acceptable MCP endpoint, or nil.
// The scheme must be https, or http to exactly localhost, 127.0.0.1 or
// [::1]; credentials (user:password@), a query and a fragment are refused,
// because they would end up in logs and reports and a redirect-free MCP
// client has no use for them.
func CheckEndpoint(raw string) error {
	if raw == "" {
		return errors.New("URL is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("not a valid URL: %v", err)
	}
	switch u.Scheme {
	case "https", "http":
	case "":
		return errors.New("URL has no scheme; use https://host/path (or http:// to localhost)")
	default:
		return fmt.Errorf("scheme %q is not supported; use https (or http to localhost, 127.0.0.1 or [::1])", u.Scheme)
	}
	if u.Opaque != "" || u.Host == "" {
		return errors.New("URL has no host; use https://host/path")
	}
	if u.User != nil {
		return errors.New("URL must not contain credentials (user:password@); send them with headersFromEnv")
	}
	if u.RawQuery != "" || u.ForceQuery {
		return errors.New("URL must not contain a query (?...)")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return errors.New("URL must not contain a fragment (#...)")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("port %s is out of range 1..65535", p)
		}
	}
	host := u.Hostname()
	if host == "" {
		return errors.New("URL has no host; use https://host/path")
	}
	if u.Scheme == "http" && !loopbackName(host) {
		return fmt.Errorf("plain http is only allowed to localhost, 127.0.0.1 or [::1], not %s; use https", display(host))
	}
	return nil
}

func loopbackName(host string) bool {
	return strings.EqualFold(host, "localhost") || host == "127.0.0.1" || host == "::1"
}

// CheckHeaderName reports why name cannot be a credential header (as in
// headersFromEnv, or quick mode's --header): it must be an HTTP token and
// not one of the headers the MCP transport sets itself.
func CheckHeaderName(name string) error {
	if !validToken(name) {
		return fmt.Errorf("%q is not a valid HTTP header name", name)
	}
	if slices.ContainsFunc(protocolHeaders, func(h string) bool { return strings.EqualFold(h, name) }) {
		return fmt.Errorf("header %s is set by the MCP transport and cannot be overridden", name)
	}
	return nil
}
