package demo

import "encoding/json"

// Schemas of the defects profile. Every one is written out, strict
// (additionalProperties false, bounded strings and numbers) and correct:
// a defect is always in what a tool does, never in what it declares, except
// for exchange_rate, whose result breaks its own (correct-looking)
// outputSchema.
var (
	lookupCityInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string", "minLength": 1, "maxLength": 100, "description": "City name, such as Lisbon."},
			"country": {"type": "string", "minLength": 1, "maxLength": 100, "description": "Country name or ISO 3166-1 alpha-2 code, to choose between cities of the same name."}
		},
		"required": ["city"],
		"additionalProperties": false
	}`)
	lookupCityOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string"},
			"country": {"type": "string"},
			"country_code": {"type": "string", "pattern": "^[A-Z]{2}$"},
			"timezone": {"type": "string", "description": "IANA time zone name."},
			"latitude": {"type": "number", "minimum": -90, "maximum": 90},
			"longitude": {"type": "number", "minimum": -180, "maximum": 180},
			"population": {"type": "integer", "minimum": 0}
		},
		"required": ["city", "country", "country_code", "timezone", "latitude", "longitude", "population"],
		"additionalProperties": false
	}`)

	convertUnitsInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"value": {"type": "number", "description": "The length to convert."},
			"from": {"type": "string", "enum": ["km", "m", "cm", "mm", "mi", "yd", "ft", "in"], "description": "Unit of value."},
			"to": {"type": "string", "enum": ["km", "m", "cm", "mm", "mi", "yd", "ft", "in"], "description": "Unit to convert to."}
		},
		"required": ["value", "from", "to"],
		"additionalProperties": false
	}`)
	convertUnitsOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"value": {"type": "number"},
			"from": {"type": "string", "enum": ["km", "m", "cm", "mm", "mi", "yd", "ft", "in"]},
			"to": {"type": "string", "enum": ["km", "m", "cm", "mm", "mi", "yd", "ft", "in"]},
			"result": {"type": "number", "description": "value expressed in the unit to."}
		},
		"required": ["value", "from", "to", "result"],
		"additionalProperties": false
	}`)

	parseDateInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"date": {"type": "string", "format": "date", "description": "A calendar date, YYYY-MM-DD."}
		},
		"required": ["date"],
		"additionalProperties": false
	}`)
	parseDateOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"date": {"type": "string", "format": "date"},
			"weekday": {"enum": ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]},
			"day_of_year": {"type": "integer", "minimum": 1, "maximum": 366},
			"iso_week": {"type": "integer", "minimum": 1, "maximum": 53}
		},
		"required": ["date", "weekday", "day_of_year", "iso_week"],
		"additionalProperties": false
	}`)

	searchNotesInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Words to look for in note titles and bodies."},
			"limit": {"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "Most results to return."}
		},
		"required": ["query"],
		"additionalProperties": false
	}`)
	searchNotesOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"query": {"type": "string"},
			"total": {"type": "integer", "minimum": 0, "description": "Matching notes, before the limit."},
			"results": {
				"type": "array",
				"items": {
					"type": "object",
					"properties": {"note_id": {"type": "string"}, "title": {"type": "string"}},
					"required": ["note_id", "title"],
					"additionalProperties": false
				}
			}
		},
		"required": ["query", "total", "results"],
		"additionalProperties": false
	}`)

	// cityInputSchema is the input of weather_report.
	cityInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string", "minLength": 1, "maxLength": 100, "description": "City name, such as Lisbon."}
		},
		"required": ["city"],
		"additionalProperties": false
	}`)

	exchangeRateInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"from": {"type": "string", "enum": ["USD", "EUR", "GBP", "JPY", "CAD", "CHF", "AUD"], "description": "ISO 4217 code of the currency to convert from."},
			"to": {"type": "string", "enum": ["USD", "EUR", "GBP", "JPY", "CAD", "CHF", "AUD"], "description": "ISO 4217 code of the currency to convert to."}
		},
		"required": ["from", "to"],
		"additionalProperties": false
	}`)
	exchangeRateOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"from": {"type": "string", "enum": ["USD", "EUR", "GBP", "JPY", "CAD", "CHF", "AUD"]},
			"to": {"type": "string", "enum": ["USD", "EUR", "GBP", "JPY", "CAD", "CHF", "AUD"]},
			"rate": {"type": "number", "exclusiveMinimum": 0, "description": "Units of to per unit of from."},
			"as_of": {"type": "string", "format": "date"}
		},
		"required": ["from", "to", "rate", "as_of"],
		"additionalProperties": false
	}`)

	getForecastInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string", "minLength": 1, "maxLength": 100, "description": "City name, such as Lisbon."},
			"days": {"type": "integer", "minimum": 1, "maximum": 5, "default": 3, "description": "Days to forecast, starting today."}
		},
		"required": ["city"],
		"additionalProperties": false
	}`)
	getForecastOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"city": {"type": "string"},
			"daily": {
				"type": "array",
				"minItems": 1,
				"maxItems": 5,
				"items": {
					"type": "object",
					"properties": {
						"date": {"type": "string", "format": "date"},
						"summary": {"type": "string"},
						"high_c": {"type": "number"},
						"low_c": {"type": "number"},
						"precipitation_chance": {"type": "integer", "minimum": 0, "maximum": 100}
					},
					"required": ["date", "summary", "high_c", "low_c", "precipitation_chance"],
					"additionalProperties": false
				}
			}
		},
		"required": ["city", "daily"],
		"additionalProperties": false
	}`)

	queryInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"query": {"type": "string", "minLength": 1, "maxLength": 200, "description": "What to search the web for."}
		},
		"required": ["query"],
		"additionalProperties": false
	}`)
	slowSearchOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"query": {"type": "string"},
			"results": {
				"type": "array",
				"items": {
					"type": "object",
					"properties": {"title": {"type": "string"}, "url": {"type": "string", "format": "uri"}},
					"required": ["title", "url"],
					"additionalProperties": false
				}
			}
		},
		"required": ["query", "results"],
		"additionalProperties": false
	}`)

	createNoteInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"title": {"type": "string", "minLength": 1, "maxLength": 200},
			"body": {"type": "string", "maxLength": 5000}
		},
		"required": ["title", "body"],
		"additionalProperties": false
	}`)
	createNoteOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"note_id": {"type": "string", "description": "The new note's id, a UUID."},
			"title": {"type": "string"}
		},
		"required": ["note_id", "title"],
		"additionalProperties": false
	}`)
	noteOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"note_id": {"type": "string"},
			"title": {"type": "string"},
			"body": {"type": "string"}
		},
		"required": ["note_id", "title", "body"],
		"additionalProperties": false
	}`)

	labelOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"label_id": {"type": "string"}, "name": {"type": "string"}},
		"required": ["label_id", "name"],
		"additionalProperties": false
	}`)
	folderOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"folder_id": {"type": "string"}, "name": {"type": "string"}},
		"required": ["folder_id", "name"],
		"additionalProperties": false
	}`)
	createFileInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"folder_id": {"type": "string", "minLength": 1, "maxLength": 100, "description": "The folder to create the file in, from create_folder."},
			"name": {"type": "string", "minLength": 1, "maxLength": 200, "description": "File name, such as todo.txt."}
		},
		"required": ["folder_id", "name"],
		"additionalProperties": false
	}`)
	fileOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"file_id": {"type": "string"}, "folder_id": {"type": "string"}, "name": {"type": "string"}},
		"required": ["file_id", "folder_id", "name"],
		"additionalProperties": false
	}`)
	deletedOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"deleted": {"const": true}},
		"required": ["deleted"],
		"additionalProperties": false
	}`)

	counterSnapshotOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"notes": {"type": "integer", "minimum": 0},
			"labels": {"type": "integer", "minimum": 0},
			"folders": {"type": "integer", "minimum": 0},
			"files": {"type": "integer", "minimum": 0}
		},
		"required": ["notes", "labels", "folders", "files"],
		"additionalProperties": false
	}`)
	sharedCacheGetInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"key": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Cache key to read."}
		},
		"required": ["key"],
		"additionalProperties": false
	}`)
	sharedCacheGetOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"key": {"type": "string"}, "value": {"type": "string"}},
		"required": ["key", "value"],
		"additionalProperties": false
	}`)
	ticketCounterOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"now_serving": {"type": "integer", "minimum": 1, "description": "The ticket number on the display."}},
		"required": ["now_serving"],
		"additionalProperties": false
	}`)
)

// idInputSchema is the input of a read or delete tool of a resource: one
// required string property, the id.
func idInputSchema(param, what string) json.RawMessage {
	return json.RawMessage(`{
		"type": "object",
		"properties": {"` + param + `": {"type": "string", "minLength": 1, "maxLength": 100, "description": "` + what + `"}},
		"required": ["` + param + `"],
		"additionalProperties": false
	}`)
}

// nameInputSchema is the input of a tool that takes one required name.
func nameInputSchema(what string) json.RawMessage {
	return json.RawMessage(`{
		"type": "object",
		"properties": {"name": {"type": "string", "minLength": 1, "maxLength": 100, "description": "` + what + `"}},
		"required": ["name"],
		"additionalProperties": false
	}`)
}

// idOutputSchema is the output of a create tool that returns only the new
// id.
func idOutputSchema(param string) json.RawMessage {
	return json.RawMessage(`{
		"type": "object",
		"properties": {"` + param + `": {"type": "string", "description": "The new id, a UUID."}},
		"required": ["` + param + `"],
		"additionalProperties": false
	}`)
}

// Schemas of the offered-input tools (defects_offered.go).
var (
	formatAddressInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"street": {"type": "string", "minLength": 1, "maxLength": 200, "description": "Street and number, such as 12 Elm Street."},
			"city": {"type": "string", "minLength": 1, "maxLength": 100, "description": "City name."},
			"postcode": {"type": "string", "minLength": 1, "maxLength": 20, "description": "Postal code."}
		},
		"required": ["street", "city"],
		"additionalProperties": false
	}`)
	formatAddressOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"label": {"type": "string", "description": "The address as label lines."}},
		"required": ["label"],
		"additionalProperties": false
	}`)

	projectSchema = `{
		"type": "object",
		"properties": {
			"id": {"type": "string", "pattern": "^prj-[0-9a-f]{4}$"},
			"name": {"type": "string"},
			"room": {"type": "string"},
			"status": {"type": "string", "enum": ["planned", "in progress", "done"]}
		},
		"required": ["id", "name", "room", "status"],
		"additionalProperties": false
	}`
	listProjectsOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"projects": {"type": "array", "items": ` + projectSchema + `}},
		"required": ["projects"],
		"additionalProperties": false
	}`)
	projectOutputSchema   = json.RawMessage(projectSchema)
	getProjectInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"project_id": {"type": "string", "pattern": "^prj-[0-9a-f]{4}$", "description": "A project's id, as list_projects gives it."}},
		"required": ["project_id"],
		"additionalProperties": false
	}`)

	listFolderInputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {"path": {"type": "string", "minLength": 1, "maxLength": 200, "description": "An absolute folder path."}},
		"required": ["path"],
		"additionalProperties": false
	}`)
	listFolderOutputSchema = json.RawMessage(`{
		"type": "object",
		"properties": {
			"path": {"type": "string"},
			"entries": {"type": "array", "items": {"type": "string"}, "description": "Names; a folder's ends with a slash."}
		},
		"required": ["path", "entries"],
		"additionalProperties": false
	}`)
)
