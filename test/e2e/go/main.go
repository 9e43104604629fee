// Command cloudplatform-go-e2e runs one operation of a Go Pulumi program over the generated Go SDK
// (sdks/go) through the Automation API's inline programs, so no Go language host is needed. The
// engine starts the cloudplatform resource plugin it finds installed. test/e2e/go.test.ts builds
// it once and runs it for each step:
//
//	cloudplatform-go-e2e '<request JSON>'
//
// and reads the answer, one JSON line on stdout. The environment (PULUMI_HOME, PULUMI_BACKEND_URL,
// PATH holding the `pulumi` CLI, ...) is the caller's.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/cloudplatform/pulumi-cloudplatform/sdks/go/cloudplatform"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Request is what the test asks for: the operation, the stack, and the program's parameters.
type Request struct {
	Op      string                      `json:"op"` // up, preview, refresh, destroy
	WorkDir string                      `json:"workDir"`
	Stack   string                      `json:"stack"`
	Config  map[string]auto.ConfigValue `json:"config"`
	Program Params                      `json:"program"`
}

// Params shape the program, as a user's stack config would.
type Params struct {
	ZoneName string `json:"zoneName"`
	// A zone made outside this stack, found with the getDnsZone lookup.
	LookupZone       string `json:"lookupZone"`
	CredentialActive bool   `json:"credentialActive"`
	// Any change regenerates the credential's secret in place.
	CredentialRotation string `json:"credentialRotation"`
	KeyRotation        string `json:"keyRotation"`
	// Any change rotates the two-slot credential: the previous one regenerated, then made current.
	PairRotation string `json:"pairRotation"`
	// A Transcript of the media at this URL, when set (the test has speech to serve only where
	// espeak-ng is installed).
	TranscriptURL string `json:"transcriptUrl"`
	// Adopt a bucket and one of its credentials made outside Pulumi (the `import` resource option,
	// the engine step `pulumi import` runs), when set.
	ImportBucketID     string `json:"importBucketId"`
	ImportBucketName   string `json:"importBucketName"`
	ImportCredentialID string `json:"importCredentialId"`
	// The folder a SyncedFolder keeps under "site/", and the content of one BucketObject.
	SiteDir     string `json:"siteDir"`
	NoteContent string `json:"noteContent"`
	// The objects of an import file (cloudplatform-import), each imported with the `import` resource
	// option, the engine step `pulumi import --file` runs, and declared with the inputs that state
	// it as it is. When set, the program declares these and nothing else.
	Imports []Imported `json:"imports"`
}

// Imported is one object of an import file, and what declares it.
type Imported struct {
	Type string `json:"type"` // DnsZone, Bucket, BucketCredential
	Name string `json:"name"`
	ID   string `json:"id"`
	// A zone's or a bucket's name; a bucket's storage class.
	ObjectName   string `json:"objectName"`
	StorageClass string `json:"storageClass"`
	// A credential's bucket: by its name among the imports (its BucketId output), else by id.
	Bucket      string `json:"bucket"`
	BucketID    string `json:"bucketId"`
	AccessKeyID string `json:"accessKeyId"`
	Active      *bool  `json:"active"`
}

// imported declares the objects of an import file.
func imported(ctx *pulumi.Context, imports []Imported) error {
	buckets := map[string]*cloudplatform.Bucket{}
	for _, o := range imports {
		opt := pulumi.Import(pulumi.ID(o.ID))
		switch o.Type {
		case "DnsZone":
			if _, err := cloudplatform.NewDnsZone(ctx, o.Name, &cloudplatform.DnsZoneArgs{
				Name: pulumi.String(o.ObjectName),
			}, opt); err != nil {
				return err
			}
		case "Bucket":
			b, err := cloudplatform.NewBucket(ctx, o.Name, &cloudplatform.BucketArgs{
				Name:         pulumi.String(o.ObjectName),
				StorageClass: pulumi.String(o.StorageClass),
			}, opt)
			if err != nil {
				return err
			}
			buckets[o.Name] = b
		case "BucketCredential":
			args := &cloudplatform.BucketCredentialArgs{
				BucketId:    pulumi.String(o.BucketID),
				AccessKeyId: pulumi.String(o.AccessKeyID),
			}
			if b, ok := buckets[o.Bucket]; ok {
				args.BucketId = b.BucketId
			}
			if o.Active != nil {
				args.Active = pulumi.Bool(*o.Active)
			}
			if _, err := cloudplatform.NewBucketCredential(ctx, o.Name, args, opt); err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown type %q", o.Type)
		}
	}
	return nil
}

// Answer is one JSON line on stdout.
type Answer struct {
	OK      bool                        `json:"ok"`
	Error   string                      `json:"error,omitempty"`
	Changes map[string]int              `json:"changes,omitempty"`
	Outputs map[string]auto.OutputValue `json:"outputs,omitempty"`
}

func program(p Params) pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		if len(p.Imports) > 0 {
			return imported(ctx, p.Imports)
		}
		key, err := cloudplatform.NewApiKey(ctx, "project-key", &cloudplatform.ApiKeyArgs{
			RotateWhenChanged: pulumi.StringMap{"rotation": pulumi.String(p.KeyRotation)},
		})
		if err != nil {
			return err
		}
		zone, err := cloudplatform.NewDnsZone(ctx, "zone", &cloudplatform.DnsZoneArgs{Name: pulumi.String(p.ZoneName)})
		if err != nil {
			return err
		}
		bucket, err := cloudplatform.NewBucket(ctx, "assets", &cloudplatform.BucketArgs{ForceDestroy: pulumi.Bool(true)})
		if err != nil {
			return err
		}
		writer, err := cloudplatform.NewBucketCredential(ctx, "writer", &cloudplatform.BucketCredentialArgs{
			BucketId:          bucket.BucketId,
			Active:            pulumi.Bool(p.CredentialActive),
			RotateWhenChanged: pulumi.StringMap{"rotation": pulumi.String(p.CredentialRotation)},
		})
		if err != nil {
			return err
		}
		pair, err := cloudplatform.NewRotatingBucketCredential(ctx, "app", &cloudplatform.RotatingBucketCredentialArgs{
			BucketId:          bucket.BucketId,
			RotateAfter:       pulumi.String("30d"),
			RotateWhenChanged: pulumi.StringMap{"rotation": pulumi.String(p.PairRotation)},
		})
		if err != nil {
			return err
		}
		if p.TranscriptURL != "" {
			talk, err := cloudplatform.NewTranscript(ctx, "talk", &cloudplatform.TranscriptArgs{
				Url:      pulumi.String(p.TranscriptURL),
				Language: pulumi.String("en"),
			})
			if err != nil {
				return err
			}
			ctx.Export("transcriptId", talk.TranscriptId)
			ctx.Export("transcriptStatus", talk.Status)
			ctx.Export("transcriptText", talk.Text)
		}

		// A lookup run while the program runs (a plain invoke), and one that waits for resources
		// (the output form, after the credential exists).
		other, err := cloudplatform.LookupDnsZone(ctx, &cloudplatform.LookupDnsZoneArgs{Name: p.LookupZone})
		if err != nil {
			return err
		}
		listed := cloudplatform.GetBucketCredentialsOutput(ctx,
			cloudplatform.GetBucketCredentialsOutputArgs{BucketId: bucket.BucketId},
			pulumi.DependsOn([]pulumi.Resource{writer}))

		if p.ImportBucketID != "" {
			adopted, err := cloudplatform.NewBucket(ctx, "adopted", &cloudplatform.BucketArgs{
				Name: pulumi.String(p.ImportBucketName),
			}, pulumi.Import(pulumi.ID(p.ImportBucketID)))
			if err != nil {
				return err
			}
			adoptedKey, err := cloudplatform.NewBucketCredential(ctx, "adopted-key", &cloudplatform.BucketCredentialArgs{
				BucketId: adopted.BucketId,
			}, pulumi.Import(pulumi.ID(p.ImportCredentialID)))
			if err != nil {
				return err
			}
			ctx.Export("adoptedBucketId", adopted.BucketId)
			ctx.Export("adoptedAccessKeyId", adoptedKey.AccessKeyId)
		}

		// A folder and an object, with a key pair of their own (apart from the writer whose
		// activation the tests toggle), when the test names a folder.
		if p.SiteDir != "" {
			if err := contents(ctx, bucket, p); err != nil {
				return err
			}
		}

		ctx.Export("apiKey", key.Key)
		ctx.Export("zoneId", zone.ZoneId)
		ctx.Export("nameservers", zone.Nameservers)
		ctx.Export("bucketId", bucket.BucketId)
		ctx.Export("bucketName", bucket.Name)
		ctx.Export("s3Endpoint", bucket.S3Endpoint)
		ctx.Export("region", bucket.Region)
		ctx.Export("accessKeyId", writer.AccessKeyId)
		ctx.Export("secretAccessKey", writer.SecretAccessKey)
		ctx.Export("credentialActive", writer.Active)
		ctx.Export("writerFingerprint", writer.SecretFingerprint)
		ctx.Export("pairAccessKeyId", pair.AccessKeyId)
		ctx.Export("pairSecretAccessKey", pair.SecretAccessKey)
		ctx.Export("pairFingerprint", pair.SecretFingerprint)
		ctx.Export("pairPreviousAccessKeyId", pair.PreviousAccessKeyId)
		ctx.Export("pairPreviousSecretAccessKey", pair.PreviousSecretAccessKey)
		ctx.Export("pairNextRotationAt", pair.NextRotationAt)
		ctx.Export("lookedUpZoneId", pulumi.String(other.ZoneId))
		ctx.Export("listedCredentials", listed.Credentials())

		return nil
	}
}

// contents declares a SyncedFolder of p.SiteDir under "site/" and a BucketObject, written with a
// BucketCredential of their own.
func contents(ctx *pulumi.Context, bucket *cloudplatform.Bucket, p Params) error {
	// The objects' own key pair, apart from the writer whose activation the tests toggle.
	pair, err := cloudplatform.NewBucketCredential(ctx, "contents", &cloudplatform.BucketCredentialArgs{
		BucketId: bucket.BucketId,
	})
	if err != nil {
		return err
	}
	site, err := cloudplatform.NewSyncedFolder(ctx, "site", &cloudplatform.SyncedFolderArgs{
		Bucket:          bucket.Name,
		Prefix:          pulumi.String("site/"),
		Path:            pulumi.String(p.SiteDir),
		Exclude:         pulumi.StringArray{pulumi.String("*.map")},
		AccessKeyId:     pair.AccessKeyId,
		SecretAccessKey: pair.SecretAccessKey.Elem(), // optional on the credential (an imported one has none)
	})
	if err != nil {
		return err
	}
	note, err := cloudplatform.NewBucketObject(ctx, "note", &cloudplatform.BucketObjectArgs{
		Bucket:          bucket.Name,
		Key:             pulumi.String("notes/hello.txt"),
		Content:         pulumi.String(p.NoteContent),
		Metadata:        pulumi.StringMap{"written-by": pulumi.String("go")},
		AccessKeyId:     pair.AccessKeyId,
		SecretAccessKey: pair.SecretAccessKey.Elem(), // optional on the credential (an imported one has none)
	})
	if err != nil {
		return err
	}
	ctx.Export("contentsAccessKeyId", pair.AccessKeyId)
	ctx.Export("contentsSecretAccessKey", pair.SecretAccessKey)
	ctx.Export("siteFileCount", site.FileCount)
	ctx.Export("noteSha256", note.Sha256)
	ctx.Export("noteContentType", note.ContentType)
	return nil
}

func run(ctx context.Context, r Request) (Answer, error) {
	stack, err := auto.UpsertStackInlineSource(ctx, r.Stack, "cloudplatform-go-e2e", program(r.Program),
		auto.WorkDir(r.WorkDir))
	if err != nil {
		return Answer{}, err
	}
	if err := stack.SetAllConfig(ctx, r.Config); err != nil {
		return Answer{}, err
	}
	switch r.Op {
	case "up":
		res, err := stack.Up(ctx)
		if err != nil {
			return Answer{}, err
		}
		return Answer{OK: true, Changes: changes(res.Summary), Outputs: res.Outputs}, nil
	case "preview":
		res, err := stack.Preview(ctx)
		if err != nil {
			return Answer{}, err
		}
		summary := map[string]int{}
		for op, n := range res.ChangeSummary {
			summary[string(op)] = n
		}
		return Answer{OK: true, Changes: summary}, nil
	case "refresh":
		res, err := stack.Refresh(ctx)
		if err != nil {
			return Answer{}, err
		}
		return Answer{OK: true, Changes: changes(res.Summary)}, nil
	case "destroy":
		res, err := stack.Destroy(ctx)
		if err != nil {
			return Answer{}, err
		}
		return Answer{OK: true, Changes: changes(res.Summary)}, nil
	}
	return Answer{}, fmt.Errorf("unknown op %q", r.Op)
}

func changes(s auto.UpdateSummary) map[string]int {
	if s.ResourceChanges == nil {
		return map[string]int{}
	}
	return *s.ResourceChanges
}

func main() {
	answer, err := func() (Answer, error) {
		if len(os.Args) != 2 {
			return Answer{}, errors.New("usage: cloudplatform-go-e2e '<request JSON>'")
		}
		var r Request
		if err := json.Unmarshal([]byte(os.Args[1]), &r); err != nil {
			return Answer{}, err
		}
		return run(context.Background(), r)
	}()
	if err != nil {
		answer = Answer{OK: false, Error: err.Error()}
	}
	out, _ := json.Marshal(answer)
	fmt.Println(string(out))
}
