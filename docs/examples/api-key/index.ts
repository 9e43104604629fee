import * as cloudplatform from "@pulumi-cloudplatform/sdk";

const project = new cloudplatform.ApiKey("project", {
  rotateWhenChanged: { quarter: "2026-Q4" }, // change it to rotate the key
});

export const apiKey = project.key; // a secret
