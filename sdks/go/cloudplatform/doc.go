// API key, DNS zones, buckets, per-bucket S3 credentials and transcripts of the Cloud Platform.
package cloudplatform
