module github.com/wardenlock/warden

go 1.26

require (
	github.com/gowebpki/jcs v1.0.2 // indirect
	github.com/modelcontextprotocol/go-sdk v1.8.0 // indirect
	github.com/owenrumney/go-sarif/v2 v2.3.3 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/sethvargo/go-githubactions v1.4.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)
