package schematype

import (
	"bytes"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"
)

// Metadata is a record item's free-form JSON object, kept as its compact JSON text.
//
// Record lists are the API's hottest answers and every item carries metadata: decoded into
// map[string]any when a row is read and encoded again when the answer is written, it cost
// the records page about a tenth of its CPU. Kept as text, a read copies it (Scan) and an
// answer writes it as it is; code that needs the values decodes them (Map, Field). The text
// is the database's: PostgreSQL gives jsonb back with its own spacing and key order.
//
// The nil Metadata is SQL NULL, written as JSON null.
type Metadata []byte

// MetadataOf encodes m; a nil map gives the nil Metadata.
func MetadataOf(m map[string]any) (Metadata, error) {
	if m == nil {
		return nil, nil
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	return Metadata(b), nil
}

// Map decodes the object; null (or nil) gives a nil map.
func (m Metadata) Map() (map[string]any, error) {
	if m.IsNull() {
		return nil, nil
	}
	var out map[string]any
	if err := json.Unmarshal(m, &out); err != nil {
		return nil, fmt.Errorf("metadata: %w", err)
	}
	return out, nil
}

// Field returns the JSON text of the object's member key, nil when it has none (or when the
// metadata is not an object).
func (m Metadata) Field(key string) json.RawMessage {
	if m.IsNull() {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(m, &obj); err != nil {
		return nil
	}
	return obj[key]
}

// IsNull reports whether the metadata is absent or JSON null.
func (m Metadata) IsNull() bool { return len(m) == 0 || string(m) == "null" }

// IsEmpty reports whether the metadata is absent, null or an object without members.
func (m Metadata) IsEmpty() bool { return m.IsNull() || string(m) == "{}" }

// MarshalJSON writes the text as it is (null when absent).
func (m Metadata) MarshalJSON() ([]byte, error) {
	if len(m) == 0 {
		return []byte("null"), nil
	}
	return m, nil
}

// UnmarshalJSON keeps a compact copy of b.
func (m *Metadata) UnmarshalJSON(b []byte) error {
	var buf bytes.Buffer
	buf.Grow(len(b))
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	*m = Metadata(buf.Bytes())
	return nil
}

// Scan copies the column's text (NULL is the nil Metadata).
func (m *Metadata) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*m = nil
	case []byte:
		*m = append(Metadata(nil), v...)
	case string:
		*m = Metadata(v)
	default:
		return fmt.Errorf("metadata: cannot scan %T", src)
	}
	return nil
}

// Value is the column's text, NULL for the nil Metadata.
func (m Metadata) Value() (driver.Value, error) {
	if len(m) == 0 {
		return nil, nil
	}
	return string(m), nil
}

// MarshalGQL writes the metadata as the graph's Map scalar.
func (m Metadata) MarshalGQL(w io.Writer) {
	b, _ := m.MarshalJSON()
	_, _ = w.Write(b)
}

// UnmarshalGQL reads a Map input: a JSON object.
func (m *Metadata) UnmarshalGQL(v any) error {
	obj, ok := v.(map[string]any)
	if !ok && v != nil {
		return fmt.Errorf("%T is not a map", v)
	}
	md, err := MetadataOf(obj)
	if err != nil {
		return err
	}
	*m = md
	return nil
}
