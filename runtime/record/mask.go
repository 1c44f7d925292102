package record

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// Masked replaces a secret.
const Masked = "****"

// Masker replaces known secret values. Values shorter than MinSecret are
// ignored: masking every "a" would destroy the record without protecting
// anything worth protecting.
type Masker struct {
	secrets []string
	// shown replaces a secret with its own text (default Masked).
	shown map[string]string
}

// MinSecret is the shortest value a Masker masks.
const MinSecret = 3

// NewMasker returns a Masker of the given secrets.
func NewMasker(secrets ...string) *Masker {
	m := &Masker{}
	for _, s := range secrets {
		m.Add(s)
	}
	return m
}

// Add adds a secret.
func (m *Masker) Add(secret string) {
	if len(secret) < MinSecret {
		return
	}
	for _, s := range m.secrets {
		if s == secret {
			return
		}
	}
	m.secrets = append(m.secrets, secret)
	// Longest first, so a secret containing another is masked whole.
	sort.SliceStable(m.secrets, func(i, j int) bool { return len(m.secrets[i]) > len(m.secrets[j]) })
}

// Replace makes the masker write shown in place of value: not a secret,
// but a detail of one machine that a published record should not carry
// (the lab directory's absolute path, in SQL the native stack ran).
func (m *Masker) Replace(value, shown string) {
	if len(value) < MinSecret {
		return
	}
	m.Add(value)
	if m.shown == nil {
		m.shown = map[string]string{}
	}
	m.shown[value] = shown
}

func (m *Masker) replacement(secret string) string {
	if s, ok := m.shown[secret]; ok {
		return s
	}
	return Masked
}

// Mask replaces every secret in b.
func (m *Masker) Mask(b []byte) []byte {
	if m == nil {
		return b
	}
	for _, s := range m.secrets {
		b = bytes.ReplaceAll(b, []byte(s), []byte(m.replacement(s)))
	}
	return b
}

// MaskString is Mask for strings.
func (m *Masker) MaskString(s string) string { return string(m.Mask([]byte(s))) }

// MaskJSON replaces every secret in JSON text, as JSON escapes it inside
// strings (and as it is, for values that need no escaping).
func (m *Masker) MaskJSON(b []byte) []byte {
	if m == nil {
		return b
	}
	for _, s := range m.secrets {
		enc, _ := json.Marshal(s)
		esc := enc[1 : len(enc)-1]
		rep, _ := json.Marshal(m.replacement(s))
		b = bytes.ReplaceAll(b, esc, rep[1:len(rep)-1])
		if !bytes.Equal(esc, []byte(s)) {
			b = bytes.ReplaceAll(b, []byte(s), []byte(m.replacement(s)))
		}
	}
	return b
}

// MySQLDSN shows a go-sql-driver DSN without its password (and without
// parameters, which may carry credentials): user:****@tcp(host:port)/db.
func MySQLDSN(dsn string) string {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		// Not parseable: show nothing that could be a secret.
		if i := strings.LastIndex(dsn, "@"); i >= 0 {
			return Masked + dsn[i:]
		}
		return dsn
	}
	user := cfg.User
	if cfg.Passwd != "" {
		user += ":" + Masked
	}
	return user + "@" + cfg.Net + "(" + cfg.Addr + ")/" + cfg.DBName
}

// URL shows a URL with its password masked and secret-looking query
// parameters removed.
func URL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	for k := range q {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "pass") || strings.Contains(lk, "secret") || strings.Contains(lk, "token") {
			q.Set(k, "xxxxx")
		}
	}
	u.RawQuery = q.Encode()
	return strings.ReplaceAll(u.String(), "xxxxx", Masked)
}

// SecretKey tells whether an .env key names a secret.
func SecretKey(key string) bool {
	k := strings.ToUpper(key)
	return strings.Contains(k, "PASSWORD") || strings.Contains(k, "SECRET") || strings.Contains(k, "TOKEN") || strings.HasSuffix(k, "_KEY")
}
