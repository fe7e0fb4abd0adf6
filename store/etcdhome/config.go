package etcdhome

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Environment variables of an etcd home's credentials: a user and password are never
// taken from the command line, where other users of the machine can read them.
const (
	EnvUser     = "BATON_ETCD_USER"
	EnvPassword = "BATON_ETCD_PASSWORD"
)

// Scheme is the URL scheme of an etcd home: etcd://host1:2379,host2:2379/prefix.
const Scheme = "etcd"

// DefaultPort is the port of an endpoint given without one.
const DefaultPort = "2379"

// Address is a parsed etcd home address.
type Address struct {
	Endpoints []string // host:port each, in the order given
	Prefix    string   // the home's prefix, without slashes at either end ("team-a")
}

// IsURL reports whether home names an etcd home rather than a folder.
func IsURL(home string) bool { return strings.HasPrefix(home, Scheme+"://") }

// ParseURL parses etcd://host1:2379,host2:2379/prefix (a port left out is 2379; IPv6
// hosts in brackets). It refuses a user or password in the URL (they come from
// BATON_ETCD_USER and BATON_ETCD_PASSWORD), a query or fragment, and an empty prefix or
// one with empty, "." or ".." segments.
func ParseURL(s string) (Address, error) {
	bad := func(why string) (Address, error) {
		return Address{}, fmt.Errorf("etcd home %q: %s; write etcd://host1:2379,host2:2379/prefix", s, why)
	}
	rest, ok := strings.CutPrefix(s, Scheme+"://")
	if !ok {
		return bad("not an etcd:// address")
	}
	hosts, path, _ := strings.Cut(rest, "/")
	if strings.ContainsAny(rest, "?#") {
		return bad("a query or fragment is not allowed")
	}
	if strings.Contains(hosts, "@") {
		return bad("a user or password in the address is not allowed (set " + EnvUser + " and " + EnvPassword + ")")
	}
	var a Address
	for _, hp := range strings.Split(hosts, ",") {
		ep, err := endpoint(hp)
		if err != nil {
			return bad(err.Error())
		}
		a.Endpoints = append(a.Endpoints, ep)
	}
	p, err := url.PathUnescape(path)
	if err != nil {
		return bad("the prefix is not a valid path")
	}
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return bad("the prefix is missing")
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return bad(fmt.Sprintf("the prefix %q has an empty, . or .. segment", p))
		}
	}
	a.Prefix = p
	return a, nil
}

// endpoint checks one host[:port] and returns host:port.
func endpoint(hp string) (string, error) {
	if hp == "" {
		return "", errors.New("an endpoint is empty")
	}
	host, port, err := net.SplitHostPort(hp)
	if err != nil { // no port (or a bare IPv6 address in brackets)
		host, port = strings.TrimSuffix(strings.TrimPrefix(hp, "["), "]"), DefaultPort
		if strings.ContainsAny(host, "[]") || (strings.Contains(host, ":") && !strings.HasPrefix(hp, "[")) {
			return "", fmt.Errorf("endpoint %q: write host:port, an IPv6 host in brackets", hp)
		}
	}
	if host == "" || port == "" {
		return "", fmt.Errorf("endpoint %q: write host:port", hp)
	}
	for _, c := range port {
		if c < '0' || c > '9' {
			return "", fmt.Errorf("endpoint %q: the port is not a number", hp)
		}
	}
	return net.JoinHostPort(host, port), nil
}

// TLSFiles are the --etcd-cacert, --etcd-cert and --etcd-key flags: PEM files of the CA
// that signed the members' certificates, and the client's certificate and key.
type TLSFiles struct {
	CACert, Cert, Key string
}

// Register adds the three flags to fs.
func (f *TLSFiles) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.CACert, "etcd-cacert", "", "etcd home: PEM file of the CA that signed the members' certificates (turns TLS on)")
	fs.StringVar(&f.Cert, "etcd-cert", "", "etcd home: PEM file of this client's certificate (with --etcd-key)")
	fs.StringVar(&f.Key, "etcd-key", "", "etcd home: PEM file of this client's private key (with --etcd-cert)")
}

// ClientConfig returns the etcd client configuration of a: TLS when any of files is set
// (https endpoints, the CA's pool, the client's certificate), a user and password from
// getenv(EnvUser) and getenv(EnvPassword) (both or neither). getenv is os.Getenv in a
// program. Errors name the file or variable and what to do.
func ClientConfig(a Address, files TLSFiles, getenv func(string) string) (clientv3.Config, error) {
	cfg := clientv3.Config{DialTimeout: 5 * time.Second, Logger: zap.NewNop()}
	user, pass := getenv(EnvUser), getenv(EnvPassword)
	switch {
	case user != "" && pass == "":
		return cfg, fmt.Errorf("%s is set but %s is not: set both or neither", EnvUser, EnvPassword)
	case user == "" && pass != "":
		return cfg, fmt.Errorf("%s is set but %s is not: set both or neither", EnvPassword, EnvUser)
	}
	cfg.Username, cfg.Password = user, pass
	scheme := "http://"
	if files != (TLSFiles{}) {
		tc, err := tlsConfig(files)
		if err != nil {
			return cfg, err
		}
		cfg.TLS, scheme = tc, "https://"
	}
	for _, ep := range a.Endpoints {
		cfg.Endpoints = append(cfg.Endpoints, scheme+ep)
	}
	return cfg, nil
}

func tlsConfig(f TLSFiles) (*tls.Config, error) {
	tc := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.CACert != "" {
		pem, err := os.ReadFile(f.CACert)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cacert: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--etcd-cacert %s: no PEM certificate in it", f.CACert)
		}
		tc.RootCAs = pool
	}
	if (f.Cert == "") != (f.Key == "") {
		return nil, errors.New("--etcd-cert and --etcd-key go together: give both or neither")
	}
	if f.Cert != "" {
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cert %s / --etcd-key %s: %w", f.Cert, f.Key, err)
		}
		tc.Certificates = []tls.Certificate{pair}
	}
	return tc, nil
}
