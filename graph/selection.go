package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	herdbook "github.com/herdbook/herdbook"
)

// recordEdges names, by alias, the edges that the nodes of the records connection being
// resolved select, so that the service loads them with the page (one statement per edge, not
// per record).
func recordEdges(ctx context.Context) herdbook.RecordEdges {
	var e herdbook.RecordEdges
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return e
	}
	oc := graphql.GetOperationContext(ctx)
	for _, edges := range graphql.CollectFields(oc, fc.Field.Selections, []string{"RecordConnection"}) {
		if edges.Name != "edges" {
			continue
		}
		for _, node := range graphql.CollectFields(oc, edges.Selections, []string{"RecordEdge"}) {
			if node.Name != "node" {
				continue
			}
			for _, f := range graphql.CollectFields(oc, node.Selections, []string{"Record", "Node"}) {
				switch f.Name {
				case "items":
					e.Items = append(e.Items, f.Alias)
				case "files":
					e.Files = append(e.Files, f.Alias)
				case "animals":
					e.Animals = append(e.Animals, f.Alias)
				case "groups":
					e.Groups = append(e.Groups, f.Alias)
				}
			}
		}
	}
	return e
}

// selects reports whether the farm being resolved selects a field named name.
func selects(ctx context.Context, name string) bool {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil {
		return true
	}
	for _, f := range graphql.CollectFields(graphql.GetOperationContext(ctx), fc.Field.Selections, []string{"Farm", "Node"}) {
		if f.Name == name {
			return true
		}
	}
	return false
}
