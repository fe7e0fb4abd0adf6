package etcdhome

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
)

func TestParseURL(t *testing.T) {
	good := []struct {
		in   string
		want Address
	}{
		{"etcd://h1:2379,h2:2380/team-a", Address{[]string{"h1:2379", "h2:2380"}, "team-a"}},
		{"etcd://h1/baton/team-a/", Address{[]string{"h1:2379"}, "baton/team-a"}},
		{"etcd://[::1]:2379,[fe80::1]/p", Address{[]string{"[::1]:2379", "[fe80::1]:2379"}, "p"}},
		{"etcd://127.0.0.1:32379/a%20b", Address{[]string{"127.0.0.1:32379"}, "a b"}},
	}
	for _, c := range good {
		got, err := ParseURL(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseURL(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
	}
	bad := map[string]string{
		"/home/me":                  "not an etcd",
		"etcd://h1:2379":            "prefix is missing",
		"etcd://h1:2379/":           "prefix is missing",
		"etcd://h1,,h2/p":           "empty",
		"etcd://u:pw@h1/p":          "user or password",
		"etcd://h1/p?x=1":           "query",
		"etcd://h1/a//b":            "segment",
		"etcd://h1/a/../b":          "segment",
		"etcd://h1:port/p":          "not a number",
		"etcd://::1/p":              "brackets",
		"etcd://h1:2379,h2:x2379/p": "not a number",
	}
	for in, want := range bad {
		if _, err := ParseURL(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseURL(%q): %v, want an error saying %q", in, err, want)
		}
	}
	if !IsURL("etcd://h/p") || IsURL("/tmp/etcd://") {
		t.Error("IsURL")
	}
}

func env(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}

func TestClientConfigCredentials(t *testing.T) {
	a := Address{Endpoints: []string{"h:2379"}, Prefix: "p"}
	for _, e := range []func(string) string{env(EnvUser, "u"), env(EnvPassword, "pw")} {
		if _, err := ClientConfig(a, TLSFiles{}, e); err == nil || !strings.Contains(err.Error(), "both or neither") {
			t.Errorf("half the credentials: %v", err)
		}
	}
	cfg, err := ClientConfig(a, TLSFiles{}, env(EnvUser, "u", EnvPassword, "pw"))
	if err != nil || cfg.Username != "u" || cfg.Password != "pw" || cfg.TLS != nil || cfg.Endpoints[0] != "http://h:2379" {
		t.Fatalf("ClientConfig = %+v, %v", cfg, err)
	}
	dir := t.TempDir()
	if _, err := ClientConfig(a, TLSFiles{CACert: filepath.Join(dir, "none.pem")}, env()); err == nil || !strings.Contains(err.Error(), "--etcd-cacert") {
		t.Errorf("missing CA file: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "junk.pem"), []byte("junk"), 0o600)
	if _, err := ClientConfig(a, TLSFiles{CACert: filepath.Join(dir, "junk.pem")}, env()); err == nil || !strings.Contains(err.Error(), "no PEM") {
		t.Errorf("junk CA file: %v", err)
	}
	if _, err := ClientConfig(a, TLSFiles{Cert: "x"}, env()); err == nil || !strings.Contains(err.Error(), "go together") {
		t.Errorf("cert without key: %v", err)
	}
}

// TestClientConfigTLSAndAuth: against a member that requires client certificates and
// authentication, the configuration from the flags and the environment connects and
// writes; without the CA, without the client certificate, or without the credentials it
// cannot.
func TestClientConfigTLSAndAuth(t *testing.T) {
	dir := t.TempDir()
	pki := newPKI(t, dir)
	m, err := startMemberWith(filepath.Join(dir, "data"), "https", func(cfg *embed.Config) {
		cfg.ClientTLSInfo = transport.TLSInfo{CertFile: pki.serverCert, KeyFile: pki.serverKey,
			TrustedCAFile: pki.ca, ClientCertAuth: true}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer m.e.Close()
	a, err := ParseURL("etcd://" + strings.TrimPrefix(m.endpoint, "https://") + "/p")
	if err != nil {
		t.Fatal(err)
	}
	files := TLSFiles{CACert: pki.ca, Cert: pki.clientCert, Key: pki.clientKey}
	root := dial(t, a, files, env())
	ctx := testCtx(t)
	for _, step := range []func() error{
		func() error { _, err := root.UserAdd(ctx, "root", "s3cret"); return err },
		func() error { _, err := root.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := root.AuthEnable(ctx); return err },
	} {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	creds := env(EnvUser, "root", EnvPassword, "s3cret")
	if _, err := dial(t, a, files, creds).Put(ctx, "/p/x", "1"); err != nil {
		t.Fatalf("with the CA, the client certificate and the credentials: %v", err)
	}
	cases := map[string]struct {
		files TLSFiles
		env   func(string) string
	}{
		"no credentials":        {files, env()},
		"no CA":                 {TLSFiles{Cert: pki.clientCert, Key: pki.clientKey}, creds},
		"no client certificate": {TLSFiles{CACert: pki.ca}, creds},
	}
	for name, c := range cases {
		cfg, err := ClientConfig(a, c.files, c.env)
		if err != nil {
			t.Fatal(err)
		}
		cli, err := clientv3.New(cfg)
		if err != nil {
			continue // refused at dial: fine
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err = cli.Put(pctx, "/p/x", "2")
		cancel()
		cli.Close()
		if err == nil {
			t.Errorf("%s: the write succeeded", name)
		}
	}
}

func dial(t *testing.T, a Address, files TLSFiles, getenv func(string) string) *clientv3.Client {
	t.Helper()
	cfg, err := ClientConfig(a, files, getenv)
	if err != nil {
		t.Fatal(err)
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

type pkiFiles struct{ ca, serverCert, serverKey, clientCert, clientKey string }

// newPKI writes a CA, a server certificate for 127.0.0.1 and a client certificate.
func newPKI(t *testing.T, dir string) pkiFiles {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, _ := x509.ParseCertificate(caDER)
	f := pkiFiles{ca: writePEM(t, dir, "ca.pem", "CERTIFICATE", caDER)}
	leaf := func(name string, serial int64, usage x509.ExtKeyUsage) (string, string) {
		key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: name},
			NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		kder, _ := x509.MarshalECPrivateKey(key)
		return writePEM(t, dir, name+".pem", "CERTIFICATE", der), writePEM(t, dir, name+"-key.pem", "EC PRIVATE KEY", kder)
	}
	f.serverCert, f.serverKey = leaf("server", 2, x509.ExtKeyUsageServerAuth)
	f.clientCert, f.clientKey = leaf("client", 3, x509.ExtKeyUsageClientAuth)
	return f
}

func writePEM(t *testing.T, dir, name, typ string, der []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
