// A recording turned into text during `pulumi up`, driven by stack config:
//   pulumi config set audioFile media/interview.wav          # a local file, uploaded; or
//   pulumi config set audioUrl https://media.example.com/talk.mp3
//   pulumi config set language en                            # optional, default "auto"
//   pulumi config set webhookUrl https://hooks.example.com/x # optional, called once when the job ends
//   pulumi config set glossary '{"pull you me": "Pulumi"}'   # optional, heard -> written
//   pulumi up
// (connection settings as in ../quickstart; cloudplatform:apiUrl if transcription has its own URL)
// A new file content, URL, language or glossary runs (and pays for) a new job; a new webhookUrl does not.
import * as pulumi from "@pulumi/pulumi";
import * as cloudplatform from "pulumi-cloudplatform";

const config = new pulumi.Config();
const audioFile = config.get("audioFile");

const talk = new cloudplatform.Transcript("talk", {
  url: config.get("audioUrl"),
  // Only the path travels to the provider, which hashes and streams the file itself.
  source: audioFile === undefined ? undefined : new pulumi.asset.FileAsset(audioFile),
  language: config.get("language"),
  webhookUrl: config.get("webhookUrl"),
  glossary: config.getObject<Record<string, string>>("glossary"),
});

export const transcriptId = talk.transcriptId;
export const status = talk.status;
export const text = talk.text;
export const detectedLanguage = talk.detectedLanguage;
export const audioDurationSeconds = talk.audioDurationSeconds;
// US$ 0.02 per hour of audio, billed per started minute.
export const priceUsd = talk.priceUsd;
