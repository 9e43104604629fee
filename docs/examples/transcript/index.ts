import * as cloudplatform from "@pulumi-cloudplatform/sdk";

const keynote = new cloudplatform.Transcript("keynote", {
  url: "https://media.example.com/talks/keynote.mp3",
  language: "en", // the default, "auto", detects it
  glossary: { "pull you me": "Pulumi" }, // what is heard: what is written
});

export const text = keynote.text;
export const priceUsd = keynote.priceUsd;
