package cts

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"slices"
	"strings"
)

// node is an XML element with its namespace-resolved name, attributes, children and text:
// CTWS's answers put the elements Herdbook reads at depths the published client does not
// fix (it searches them with .//), so the adapter reads a tree and searches it alike.
type node struct {
	Name     xml.Name
	Attr     []xml.Attr
	Children []*node
	Text     string
}

// maxDepth bounds the nesting of an answer.
const maxDepth = 64

// parse reads a document into a tree of nodes and returns its root.
func parse(b []byte) (*node, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	var stack []*node
	var root *node
	for {
		tok, err := d.Token()
		if err != nil {
			switch {
			case err != io.EOF:
				return nil, err
			case root == nil:
				return nil, errors.New("empty document")
			case len(stack) > 0:
				return nil, errors.New("unclosed element")
			}
			return root, nil
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return nil, errors.New("document nested too deeply")
			}
			n := &node{Name: t.Name, Attr: slices.Clone(t.Attr)}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			} else if root != nil {
				return nil, errors.New("more than one root element")
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].Text += string(t)
			}
		}
	}
}

// attr returns an unqualified attribute's value, or "".
func (n *node) attr(name string) string {
	for _, a := range n.Attr {
		if a.Name.Space == "" && a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// find returns the first element at or below n (document order) in namespace ns with
// local name local, or nil.
func (n *node) find(ns, local string) *node {
	if all := n.all(ns, local); len(all) > 0 {
		return all[0]
	}
	return nil
}

// findLocal is find in any namespace.
func (n *node) findLocal(local string) *node {
	if n.Name.Local == local {
		return n
	}
	for _, c := range n.Children {
		if f := c.findLocal(local); f != nil {
			return f
		}
	}
	return nil
}

// all returns the elements at or below n in namespace ns whose local name is one of locals,
// in document order, without descending into those found.
func (n *node) all(ns string, locals ...string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if m.Name.Space == ns && slices.Contains(locals, m.Name.Local) {
			out = append(out, m)
			return
		}
		for _, c := range m.Children {
			walk(c)
		}
	}
	walk(n)
	return out
}

// childText returns the text of n's first child with local name local (any namespace:
// SOAP 1.1 leaves faultcode and faultstring unqualified).
func (n *node) childText(local string) string {
	for _, c := range n.Children {
		if c.Name.Local == local {
			return strings.TrimSpace(c.Text)
		}
	}
	return ""
}
