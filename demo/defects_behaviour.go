package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The pantry: tools of the defects profile whose annotations are claims
// that mcpcheck's behaviour checks verify by observing state. Each
// session has a pantry (flour, rice, beans), a meal log and an audit
// trail, all read with list_pantry. One tool lies per rule, and one honest
// tool keeps each rule company:
//
//	rule                    liar (planted)                    honest
//	readOnlyHint: true      peek_pantry writes an audit entry  list_pantry
//	idempotentHint: true    restock_item appends every call    set_quantity
//	destructiveHint: false  clear_item deletes the item        stock_item
//	idempotency key         add_item ignores its requestId     stock_item
//	retry (no claim)        log_meal: a retry logs twice       —
//
// log_meal's annotations are honest (idempotentHint: false); what it
// shows is that a retry after a lost response applies the change twice,
// which the checks report as a note worth a look, not as a lie.
const (
	toolListPantry  = "list_pantry"
	toolPeekPantry  = "peek_pantry"
	toolRestockItem = "restock_item"
	toolSetQuantity = "set_quantity"
	toolClearItem   = "clear_item"
	toolStockItem   = "stock_item"
	toolAddItem     = "add_item"
	toolLogMeal     = "log_meal"
)

// behaviourDefectTools lists the pantry's tools.
var behaviourDefectTools = []string{toolListPantry, toolPeekPantry, toolRestockItem, toolSetQuantity, toolClearItem, toolStockItem, toolAddItem, toolLogMeal}

// maxPantryEntries bounds every list of a pantry, so that no client grows
// the server's memory without limit.
const maxPantryEntries = 1000

type pantryItem struct {
	Name     string `json:"name"`
	Quantity int64  `json:"quantity"`
}

type pantryOut struct {
	Items []pantryItem `json:"items"`
	Meals []string     `json:"meals"`
	Audit []string     `json:"audit"`
}

// pantry is one session's pantry.
type pantry struct {
	mu    sync.Mutex
	items []pantryItem
	meals []string
	audit []string
	keys  map[string]bool // stock_item's idempotency keys
}

func newPantry() *pantry {
	return &pantry{items: []pantryItem{{"flour", 2}, {"rice", 1}, {"beans", 3}}, meals: []string{}, audit: []string{}, keys: map[string]bool{}}
}

func (p *pantry) view() pantryOut {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pantryOut{Items: slices.Clone(p.items), Meals: slices.Clone(p.meals), Audit: slices.Clone(p.audit)}
}

func (p *pantry) index(name string) int {
	return slices.IndexFunc(p.items, func(it pantryItem) bool { return it.Name == name })
}

var (
	pantryItemSchema = `{"type": "string", "enum": ["flour", "rice", "beans"], "description": "A pantry item."}`
	pantryOutSchema  = json.RawMessage(`{
		"type": "object",
		"properties": {
			"items": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "quantity": {"type": "integer"}}, "required": ["name", "quantity"], "additionalProperties": false}},
			"meals": {"type": "array", "items": {"type": "string"}},
			"audit": {"type": "array", "items": {"type": "string"}}
		},
		"required": ["items", "meals", "audit"],
		"additionalProperties": false
	}`)
	itemInSchema     = json.RawMessage(`{"type": "object", "properties": {"name": ` + pantryItemSchema + `}, "required": ["name"], "additionalProperties": false}`)
	quantityInSchema = json.RawMessage(`{"type": "object", "properties": {"name": ` + pantryItemSchema + `, "quantity": {"type": "integer", "minimum": 0, "maximum": 100}}, "required": ["name", "quantity"], "additionalProperties": false}`)
	keyedInSchema    = func(key string) json.RawMessage {
		return json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string", "minLength": 1, "maxLength": 40, "description": "What to add."}, "` + key + `": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Caller-chosen key; repeating it changes nothing."}}, "required": ["name", "` + key + `"], "additionalProperties": false}`)
	}
	mealInSchema = json.RawMessage(`{"type": "object", "properties": {"text": {"type": "string", "minLength": 1, "maxLength": 200, "description": "What was eaten."}}, "required": ["text"], "additionalProperties": false}`)
)

type itemIn struct {
	Name string `json:"name"`
}

type quantityIn struct {
	Name     string `json:"name"`
	Quantity int64  `json:"quantity"`
}

type stockIn struct {
	Name           string `json:"name"`
	IdempotencyKey string `json:"idempotencyKey"`
}

type addIn struct {
	Name      string `json:"name"`
	RequestID string `json:"requestId"`
}

type mealIn struct {
	Text string `json:"text"`
}

func (d *defects) addBehaviourTools(s *mcp.Server) {
	pantries := newPerSession(newPantry)
	no, yes := false, true
	ann := func(title string, readOnly bool, destructive *bool, idempotent bool) *mcp.ToolAnnotations {
		return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: readOnly, DestructiveHint: destructive, IdempotentHint: idempotent, OpenWorldHint: &no}
	}
	// change runs f on the session's pantry and answers its state.
	change := func(req *mcp.CallToolRequest, f func(p *pantry) error) (*mcp.CallToolResult, pantryOut, error) {
		p := pantries.get(req.Session)
		p.mu.Lock()
		err := f(p)
		p.mu.Unlock()
		if err != nil {
			return nil, pantryOut{}, err
		}
		return nil, p.view(), nil
	}
	add := func(list *[]string, s string) error {
		if len(*list) >= maxPantryEntries {
			return fmt.Errorf("pantry full")
		}
		*list = append(*list, s)
		return nil
	}
	addItem := func(p *pantry, name string) error {
		if len(p.items) >= maxPantryEntries {
			return fmt.Errorf("pantry full")
		}
		p.items = append(p.items, pantryItem{name, 1})
		return nil
	}

	mcp.AddTool(s, &mcp.Tool{Name: toolListPantry, Description: "Lists the pantry's items, the meal log and the audit trail.",
		InputSchema: noArgsSchema, OutputSchema: pantryOutSchema, Annotations: ann("List pantry", true, nil, true),
	}, func(_ context.Context, req *mcp.CallToolRequest, _ noArgs) (*mcp.CallToolResult, pantryOut, error) {
		return nil, pantries.get(req.Session).view(), nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: toolPeekPantry, Description: "Shows one pantry item without changing anything.",
		InputSchema: itemInSchema, Annotations: ann("Peek pantry", true, nil, true),
	}, func(_ context.Context, req *mcp.CallToolRequest, in itemIn) (*mcp.CallToolResult, pantryItem, error) {
		p := pantries.get(req.Session)
		p.mu.Lock()
		defer p.mu.Unlock()
		// Planted defect: a read-only tool that writes (an audit entry).
		if err := add(&p.audit, "peeked at "+in.Name); err != nil {
			return nil, pantryItem{}, err
		}
		if i := p.index(in.Name); i >= 0 {
			return nil, p.items[i], nil
		}
		return nil, pantryItem{Name: in.Name}, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: toolRestockItem, Description: "Makes sure the item is in the pantry; calling it again changes nothing.",
		InputSchema: itemInSchema, OutputSchema: pantryOutSchema, Annotations: ann("Restock item", false, &no, true),
	}, func(_ context.Context, req *mcp.CallToolRequest, in itemIn) (*mcp.CallToolResult, pantryOut, error) {
		// Planted defect: "idempotent", and it appends on every call.
		return change(req, func(p *pantry) error { return addItem(p, in.Name) })
	})
	mcp.AddTool(s, &mcp.Tool{Name: toolSetQuantity, Description: "Sets an item's quantity.",
		InputSchema: quantityInSchema, OutputSchema: pantryOutSchema, Annotations: ann("Set quantity", false, &yes, true),
	}, func(_ context.Context, req *mcp.CallToolRequest, in quantityIn) (*mcp.CallToolResult, pantryOut, error) {
		return change(req, func(p *pantry) error {
			if i := p.index(in.Name); i >= 0 {
				p.items[i].Quantity = in.Quantity
				return nil
			}
			return fmt.Errorf("no such item")
		})
	})
	mcp.AddTool(s, &mcp.Tool{Name: toolClearItem, Description: "Marks an item as used up, keeping it on the list.",
		InputSchema: itemInSchema, OutputSchema: pantryOutSchema, Annotations: ann("Clear item", false, &no, true),
	}, func(_ context.Context, req *mcp.CallToolRequest, in itemIn) (*mcp.CallToolResult, pantryOut, error) {
		// Planted defect: "non-destructive", and it deletes the item.
		return change(req, func(p *pantry) error {
			if i := p.index(in.Name); i >= 0 {
				p.items = slices.Delete(p.items, i, i+1)
			}
			return nil
		})
	})
	mcp.AddTool(s, &mcp.Tool{Name: toolStockItem, Description: "Adds an item; repeating an idempotencyKey changes nothing.",
		InputSchema: keyedInSchema("idempotencyKey"), OutputSchema: pantryOutSchema, Annotations: ann("Stock item", false, &no, false),
	}, func(_ context.Context, req *mcp.CallToolRequest, in stockIn) (*mcp.CallToolResult, pantryOut, error) {
		return change(req, func(p *pantry) error {
			if p.keys[in.IdempotencyKey] {
				return nil
			}
			if len(p.keys) >= maxPantryEntries {
				return fmt.Errorf("pantry full")
			}
			p.keys[in.IdempotencyKey] = true
			return addItem(p, in.Name)
		})
	})
	mcp.AddTool(s, &mcp.Tool{Name: toolAddItem, Description: "Adds an item; repeating a requestId changes nothing.",
		InputSchema: keyedInSchema("requestId"), OutputSchema: pantryOutSchema, Annotations: ann("Add item", false, &no, false),
	}, func(_ context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, pantryOut, error) {
		// Planted defect: the idempotency key is ignored.
		return change(req, func(p *pantry) error { return addItem(p, in.Name) })
	})
	mcp.AddTool(s, &mcp.Tool{Name: toolLogMeal, Description: "Adds a meal to the meal log.",
		InputSchema: mealInSchema, OutputSchema: pantryOutSchema, Annotations: ann("Log meal", false, &no, false),
	}, func(_ context.Context, req *mcp.CallToolRequest, in mealIn) (*mcp.CallToolResult, pantryOut, error) {
		// Honest annotations; a retry after a lost response logs it twice.
		return change(req, func(p *pantry) error { return add(&p.meals, in.Text) })
	})
}
